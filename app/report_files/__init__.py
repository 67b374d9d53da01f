"""The AWR and Statspack reports people send (docs/report-formats.md): their layouts read into one model
(`model.Report`), and a folder of them imported into a store as a database's history (`importer`)."""
