"""Test and lab equipment, outside the product package and never shipped to Lambda (infra/lambda_package.py fails a
package that holds it):

- endpoints: loopback stand-ins for a database that fails over (silent and resetting listeners, dropped SYNs, and
  an Oracle Net stand-in that logs the real driver on; tests/fake_oracle.py extends its TnsSession);
- hang: field test 001 (client hangs during RDS failover) against those endpoints, which `flask runs hang` runs.

Nothing in app/ imports this package at import time (tests/test_package.py checks it).
"""
