"""Reading AWR report files (app/report_files: numbers, the text, HTML and RAC global text layouts, refusals):
excerpts typed from Oracle's own layouts with expectations worked out by hand from their lines, and the demo's
reports (app/demo/report_files.py) read back against the store's rows (docs/report-formats.md)."""

import math
import sqlite3
from datetime import datetime

import pytest

from app.report_files import numbers as n
from app.report_files.awr_common import KnownNames
from app.report_files.model import ReportError
from app.report_files.parse import parse

TEXT_19 = """
WORKLOAD REPOSITORY report for

DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB
------------ ----------- ----------- ---------------- ------- ---------- --- ---
BPSC          1135854311 BPSC        PRIMARY          EE      12.2.0.1.0 NO  NO

Instance     Inst Num Startup Time
------------ -------- ---------------
bpsc                1 04-Feb-23 15:30

Host Name        Platform                         CPUs Cores Sockets Memory(GB)
---------------- -------------------------------- ---- ----- ------- ----------
oracle1          AIX-Based Systems (64-bit)         40     5             502.00

              Snap Id      Snap Time      Sessions Curs/Sess
            --------- ------------------- -------- ---------
Begin Snap:      2668 04-Feb-23 19:00:39       104       3.7
  End Snap:      2669 04-Feb-23 20:00:54        92       3.6
   Elapsed:               60.25 (mins)
   DB Time:               66.24 (mins)

Load Profile                    Per Second   Per Transaction  Per Exec  Per Call
~~~~~~~~~~~~~~~            ---------------   --------------- --------- ---------
             DB Time(s):               1.1               0.1      0.00      0.00
              DB CPU(s):               0.3               0.0      0.00      0.00
      Redo size (bytes):         146,118.4           7,016.0
         Executes (SQL):           1,536.9              73.8
              Rollbacks:               0.2               0.0
           Transactions:              20.8

Top 10 Foreground Events by Total Wait Time
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                                           Total Wait       Avg   % DB Wait
Event                                Waits Time (sec)      Wait   time Class
------------------------------ ----------- ---------- --------- ------ --------
DB CPU                                         1234.8             31.1
db file sequential read            360,121       39.5  109.72us    1.0 User I/O
cursor: pin S wait on X                553        8.8   15.94ms     .2 Concurre
control file sequential read        17,546        1.9  109.91us     .0 System I

Wait Classes by Total Wait Time
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                                                          Avg             Avg
                                        Total Wait       Wait   % DB   Active
Wait Class                  Waits       Time (sec)       Time   time Sessions
---------------- ---------------- ---------------- ---------- ------ --------
DB CPU                                       1,235              31.1      0.3
System I/O                222,932               62   279.87us    1.6      0.0
User I/O                  367,040               47   127.40us    1.2      0.0

Time Model Statistics                     DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Ordered by % of DB time in descending order, followed by Statistic Name

                                                                % of  % of Total
Statistic Name                                       Time (s) DB Time   CPU Time
------------------------------------------ ------------------ ------- ----------
sql execute elapsed time                              2,765.8    69.6
DB CPU                                                1,234.8    31.1       98.7
DB time                                               3,974.4
background cpu time                                      16.5                1.3
                          ------------------------------------------------------

Operating System Statistics               DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> *TIME statistic values are diffed.

Statistic                                  Value        End Value
------------------------- ---------------------- ----------------
BUSY_TIME                                423,547
IDLE_TIME                             14,040,369
LOAD                                           3                2
NUM_CPUS                                      40
                          ------------------------------------------------------

Foreground Wait Events                    DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> s  - second, ms - millisecond, us - microsecond, ns - nanosecond

                                                Total
                                       %Time     Wait              Waits   % DB
Event                            Waits -outs Time (s)  Avg wait     /txn   time
-------------------------- ----------- ----- -------- --------- -------- ------
db file sequential read        360,121             40  109.72us      4.8    1.0
control file sequential re      17,546              2  109.91us      0.2     .0
SQL*Net message from clien   1,914,009        143,471   74.96ms     25.4
jobq slave wait                 10,570   100    5,273  498.83ms      0.1
                          ------------------------------------------------------


Background Wait Events                    DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> ordered by wait time desc, waits desc (idle events last)

                                                Total
                                       %Time     Wait              Waits   % bg
Event                            Waits -outs Time (s)  Avg wait     /txn   time
-------------------------- ----------- ----- -------- --------- -------- ------
log file parallel write        103,636     0       40  386.73us      1.4   30.1
control file sequential re      10,170     0        1  115.47us      0.1     .9
smon timer                          14    57    3,357  239.80 s      0.0
                          ------------------------------------------------------


Wait Event Histogram                      DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Units for Total Waits column: K is 1000, M is 1000000, G is 1000000000

                                                 % of Total Waits
                                 -----------------------------------------------
                           Total
Event                      Waits  <8us <16us <32us <64us <128u <256u <512u >=512
------------------------- ------ ----- ----- ----- ----- ----- ----- ----- -----
db file sequential read   363.3K                          90.6   5.4   3.6    .4
log file sync              77.9K    .0    .0    .1    .5   2.8  13.8  73.3   9.6
                          ------------------------------------------------------


Wait Event Histogram (up to 32 ms)        DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Units for Total Waits column: K is 1000, M is 1000000, G is 1000000000

                                                 % of Total Waits
                                 -----------------------------------------------
                           Waits
                            1ms
Event                     to 32m  <512  <1ms  <2ms  <4ms  <8ms <16ms <32ms >=32m
------------------------- ------ ----- ----- ----- ----- ----- ----- ----- -----
db file sequential read     1627  99.6    .3    .1    .1    .0    .0    .0    .0
log file sync               7455  90.4   7.9   1.3    .2    .1    .0    .0    .0
                          ------------------------------------------------------

SQL ordered by Elapsed Time               DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Captured SQL account for  102.9% of Total DB Time (s):           3,974

        Elapsed                  Elapsed Time
        Time (s)    Executions  per Exec (s)  %Total   %CPU    %IO    SQL Id
---------------- -------------- ------------- ------ ------ ------ -------------
           710.5          3,896          0.18   17.9   31.8     .1 5bxqqbbup9tx1
Module: php@system (TNS V1-V3)
DELETE POZIOM WHERE SESJA = :B1

           184.4            N/A           N/A    4.6   31.1    N/A 2g03fpn912qrx
SELECT CASE WHEN NVL(VN.DATA_BLOKADY_DM,TO_DATE('0001','YYYY')) >= VN.DATA_DO TH
EN WYJATEK.RAISE0( -20200, PCG_LOCALE.MESSAGE( 'gm.sprawdzd.sdblokadadmvd.1', 'B

SQL ordered by Elapsed Time               DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Captured SQL account for  102.9% of Total DB Time (s):           3,974

        Elapsed                  Elapsed Time
        Time (s)    Executions  per Exec (s)  %Total   %CPU    %IO    SQL Id
---------------- -------------- ------------- ------ ------ ------ -------------
lokada wystawienia/modyfikacji DM w okresie {0}', VN.NUMER_OKRESU ) ) ELSE CASE

           104.8         26,220          0.00    2.6   32.2     .0 cjnmy48mjkhgc
Module: php.exe
SELECT NVL(SUM(IL),0) FROM ( SELECT COUNT(FLAGA_GNIAZDA) IL

                          ------------------------------------------------------

Instance Activity Stats                   DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> Ordered by statistic name

Statistic                                     Total     per Second     per Trans
-------------------------------- ------------------ -------------- -------------
redo synch time overhead count (             77,870           21.5           1.0
redo synch time overhead count (                 49            0.0           0.0
redo synch writes                            77,987           21.6           1.0
session logical reads                   352,278,864       97,456.4       4,679.5
shared hash latch upgrades - no           1,869,143          517.1          24.8
                          ------------------------------------------------------

IOStat by Function summary                DB/Inst: BPSC/bpsc  Snaps: 2668-2669
-> 'Data' columns suffixed with M,G,T,P are in multiples of 1024

                 Reads:  Reqs    Data   Writes:  Reqs    Data    Waits:    Avg
Function Name      Data per sec per sec    Data per sec per sec   Count    Time
--------------- ------- ------- ------- ------- ------- ------- ------- --------
Buffer Cache Re    2.8G   101.1   .801M      0M     0.0      0M  364.2K 113.87us
DBWR                 0M     0.0      0M    844M    12.3   .233M       0
TOTAL:             4.2G   109.3  1.196M    2.1G    42.8   .606M  497.8K 171.85us
                          ------------------------------------------------------

Segments by Logical Reads                  DB/Inst: RACDB/racdb1  Snaps: 37-38
-> Total Logical Reads:           7,424

                     Tablespace
Owner                   Name
-------------------- ----------
                     Subobject  Obj.                             Logical
Object Name            Name     Type        Obj#   Dataobj#        Reads  %Total
-------------------- ---------- ----- ---------- ---------- ------------ -------
SYS                  SYSTEM
I_HH_OBJ#_INTCOL#               INDEX         70         70        2,224   29.96
   PDB: PDB1
SYS                  SYSTEM
HIST_HEAD$                      TABLE         68         68        1,056   14.22
   PDB: PDB1
                          ------------------------------------------------------

init.ora Parameters                       DB/Inst: BPSC/bpsc  Snaps: 2668-2669

                                                                End value
Parameter Name                Begin value                       (if different)
----------------------------- --------------------------------- --------------
control_files                 +DATA/RACDB/CONTROLFILE/current.2
                              +FRA/RACDB/CONTROLFILE/current.25
db_block_size                 8192
sga_target                    1610612736                        2147483648
                          ------------------------------------------------------

End of Report
"""

HTML_11 = """<html lang="en"><head><title>AWR Report for DB: ZJDQ, Inst: zjdq2, Snaps: 45952-45958</title></head>
<body class="awr">
<h1 class="awr">
WORKLOAD REPOSITORY report for

</h1>
<p />
<table border="0" width="600" class="tdiff" summary="This table displays database instance information">
<tr><th class="awrbg" scope="col">DB Name</th>
<th class="awrbg" scope="col">DB Id</th>
<th class="awrbg" scope="col">Instance</th>
<th class="awrbg" scope="col">Inst num</th>
<th class="awrbg" scope="col">Startup Time</th>
<th class="awrbg" scope="col">Release</th>
<th class="awrbg" scope="col">RAC</th></tr>
<tr><td scope="row" class='awrnc'>ZJDQ</td>
<td align="right" class='awrnc'>833766800</td>
<td class='awrnc'>zjdq2</td>
<td align="right" class='awrnc'>2</td>
<td class='awrnc'>10-Aug-17 08:08</td>
<td class='awrnc'>11.2.0.4.0</td>
<td class='awrnc'>YES</td></tr>
</table>
<p />
<table border="0" width="600" class="tdiff" summary="This table displays host information">
<tr><th class="awrbg" scope="col">Host Name</th>
<th class="awrbg" scope="col">Platform</th>
<th class="awrbg" scope="col">CPUs</th>
<th class="awrbg" scope="col">Cores</th>
<th class="awrbg" scope="col">Sockets</th>
<th class="awrbg" scope="col">Memory (GB)</th></tr>
<tr><td scope="row" class='awrnc'>zjdddqtm02</td>
<td class='awrnc'>Linux x86 64-bit</td>
<td align="right" class='awrnc'> 120</td>
<td align="right" class='awrnc'>  60</td>
<td align="right" class='awrnc'>   4</td>
<td align="right" class='awrnc'>  511.80</td></tr>
</table>
<p />
<table border="0" width="600" class="tdiff" summary="This table displays snapshot information">
<tr><th class="awrnobg" scope="col"></th>
<th class="awrbg" scope="col">Snap Id</th>
<th class="awrbg" scope="col">Snap Time</th>
<th class="awrbg" scope="col">Sessions</th>
<th class="awrbg" scope="col">Cursors/Session</th>
<th class="awrbg" scope="col">Instances</th></tr>
<tr><td scope="row" class='awrnc'>Begin Snap:</td>
<td align="right" class='awrnc'>45952</td>
<td align="center" class='awrnc'>24-Aug-17 19:30:12</td>
<td align="right" class='awrnc'>8872</td>
<td align="right" class='awrnc'>       .2</td>
<td align="right" class='awrnc'>4</td></tr>
<tr><td scope="row" class='awrc'>End Snap:</td>
<td align="right" class='awrc'>45958</td>
<td align="center" class='awrc'>24-Aug-17 21:00:07</td>
<td align="right" class='awrc'>8910</td>
<td align="right" class='awrc'>       .2</td>
<td align="right" class='awrc'>4</td></tr>
<tr><td scope="row" class='awrnc'>Elapsed:</td>
<td class='awrnc'>&#160;</td>
<td align="center" class='awrnc'>              89.92 (mins)</td>
<td class='awrnc'>&#160;</td>
<td class='awrnc'>&#160;</td>
<td class='awrnc'>&#160;</td></tr>
<tr><td scope="row" class='awrc'>DB Time:</td>
<td class='awrc'>&#160;</td>
<td align="center" class='awrc'>             697.79 (mins)</td>
<td class='awrc'>&#160;</td>
<td class='awrc'>&#160;</td>
<td class='awrc'>&#160;</td></tr>
</table>
<p />
<h3 class="awr"><a class="awr" name="99999"></a>Report Summary</h3>
<p />Load Profile<p />
<table border="0" width="600" class="tdiff" summary="This table displays load profile">
<tr><th class="awrnobg" scope="col"></th>
<th class="awrbg" scope="col">Per Second</th>
<th class="awrbg" scope="col">Per Transaction</th>
<th class="awrbg" scope="col">Per Exec</th>
<th class="awrbg" scope="col">Per Call</th></tr>
<tr><td scope="row" class='awrc'>DB Time(s):</td>
<td align="right" class='awrc'>               7.8</td>
<td align="right" class='awrc'>               0.0</td>
<td align="right" class='awrc'>      0.00</td>
<td align="right" class='awrc'>      0.00</td></tr>
<tr><td scope="row" class='awrnc'>Redo size (bytes):</td>
<td align="right" class='awrnc'>       2,240,709.3</td>
<td align="right" class='awrnc'>           1,746.5</td>
<td class='awrnc'>&#160;</td>
<td class='awrnc'>&#160;</td></tr>
<tr><td scope="row" class='awrc'>Transactions:</td>
<td align="right" class='awrc'>           1,283.0</td>
<td class='awrc'>&#160;</td>
<td class='awrc'>&#160;</td>
<td class='awrc'>&#160;</td></tr>
</table>
<p />Top 10 Foreground Events by Total Wait Time<p />
<table border="0" width="600" class="tdiff" summary="This table displays top 10 wait events by total wait time">
<tr><th class="awrbg" scope="col">Event</th>
<th class="awrbg" scope="col">Waits</th>
<th class="awrbg" scope="col">Total Wait Time (sec)</th>
<th class="awrbg" scope="col">Wait Avg(ms)</th>
<th class="awrbg" scope="col">% DB time</th>
<th class="awrbg" scope="col">Wait Class</th></tr>
<tr><td scope="row" class='awrc'>DB CPU</td>
<td align="right" class='awrc'>&#160;</td>
<td align="right" class='awrc'>30.8K</td>
<td align="right" class='awrc'>&#160;</td>
<td align="right" class='awrc'>73.6</td>
<td class='awrc'>&#160;</td></tr>
<tr><td scope="row" class='awrnc'>log file sync</td>
<td align="right" class='awrnc'>1,217,279</td>
<td align="right" class='awrnc'>3926.1</td>
<td align="right" class='awrnc'>3</td>
<td align="right" class='awrnc'>9.4</td>
<td class='awrnc'>Commit</td></tr>
</table><p />
<h3 class="awr"><a class="awr" name="21"></a>Foreground Wait Events</h3>
<ul><li class="awr"> s  - second, ms - millisecond -    1000th of a second</li></ul>
<table border="0" class="tdiff" summary="This table displays Foreground Wait Events and their wait statistics">
<tr><th class="awrbg" scope="col">Event</th>
<th class="awrbg" scope="col">Waits</th>
<th class="awrbg" scope="col">%Time -outs</th>
<th class="awrbg" scope="col">Total Wait Time (s)</th>
<th class="awrbg" scope="col">Avg wait (ms)</th>
<th class="awrbg" scope="col">Waits /txn</th>
<th class="awrbg" scope="col">% DB time</th></tr>
<tr><td scope="row" class='awrc'>log file sync</td>
<td align="right" class='awrc'>1,217,279</td>
<td align="right" class='awrc'>0</td>
<td align="right" class='awrc'>3,926</td>
<td align="right" class='awrc'>3</td>
<td align="right" class='awrc'>0.16</td>
<td align="right" class='awrc'>9.38</td></tr>
<tr><td scope="row" class='awrnc'>SQL*Net message from client</td>
<td align="right" class='awrnc'>27,000</td>
<td align="right" class='awrnc'>10</td>
<td align="right" class='awrnc'>1,200</td>
<td align="right" class='awrnc'>44</td>
<td align="right" class='awrnc'>0.00</td>
<td align="right" class='awrnc'>&#160;</td></tr>
</table>
<h3 class="awr">SQL ordered by Elapsed Time</h3>
<table border="0" class="tdiff" summary="This table displays top SQL by elapsed time">
<tr><th class="awrbg" scope="col">Elapsed Time (s)</th>
<th class="awrbg" scope="col">Executions </th>
<th class="awrbg" scope="col">Elapsed Time per Exec (s) </th>
<th class="awrbg" scope="col">%Total</th>
<th class="awrbg" scope="col">%CPU</th>
<th class="awrbg" scope="col">%IO</th>
<th class="awrbg" scope="col">SQL Id</th>
<th class="awrbg" scope="col">SQL Module</th>
<th class="awrbg" scope="col">SQL Text</th></tr>
<tr><td align="right" class='awrc'>4,733.33</td>
<td align="right" class='awrc'>2,047</td>
<td align="right" class='awrc'>2.31</td>
<td align="right" class='awrc'>55.79</td>
<td align="right" class='awrc'>0.42</td>
<td align="right" class='awrc'>99.15</td>
<td scope="row" class='awrc'><a class="awr" href="#0w2qpuc6u2zsp">0w2qpuc6u2zsp</a></td>
<td class='awrc'>Swingbench User Thread</td>
<td class='awrc'>BEGIN :1 := orderentry.neworder(...</td></tr>
</table>
<h3 class="awr">Complete List of SQL Text</h3>
<table border="0" class="tdiff"
summary="This table displays the text of the SQL statements which have been referred to in the report">
<tr><th class="awrbg" scope="col">SQL Id</th>
<th class="awrbg" scope="col">SQL Text</th></tr>
<tr><td scope="row" class='awrc'><a class="awr" name="0w2qpuc6u2zsp"></a>0w2qpuc6u2zsp</td>
<td class='awrc'>BEGIN :1 := orderentry.neworder(:2 ,:3 ,:4 ); END;</td></tr>
</table>
<p />
End of Report
</body></html>
"""


TEXT_11 = """
WORKLOAD REPOSITORY report for

DB Name         DB Id    Instance     Inst Num Startup Time    Release     RAC
------------ ----------- ------------ -------- --------------- ----------- ---
ORCL          1344731332 orcl                1 12-Feb-17 08:19 11.2.0.1.0  NO

Host Name        Platform                         CPUs Cores Sockets Memory(GB)
---------------- -------------------------------- ---- ----- ------- ----------
fabioprado.net   Linux x86 64-bit                    2     2       1       1.96

              Snap Id      Snap Time      Sessions Curs/Sess
            --------- ------------------- -------- ---------
Begin Snap:        37 12-Feb-17 12:16:04        25       1.6
  End Snap:        38 12-Feb-17 12:22:06        27       2.1
   Elapsed:                6.03 (mins)
   DB Time:              141.41 (mins)

Load Profile              Per Second    Per Transaction   Per Exec   Per Call
~~~~~~~~~~~~         ---------------    --------------- ---------- ----------
      DB Time(s):               23.5                0.9       0.09       0.68
       Redo size:           56,890.1            2,287.8
    Transactions:               24.9

Top 5 Timed Foreground Events
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                                                           Avg
                                                          wait   % DB
Event                                 Waits     Time(s)   (ms)   time Wait Class
------------------------------ ------------ ----------- ------ ------ ----------
db file sequential read              35,732       6,575    184   77.5 User I/O
latch: enqueue hash chains               18           3    175     .0 Concurrency
Host CPU (CPUs:    2 Cores:    2 Sockets:    1)
~~~~~~~~         Load Average
               Begin       End     %User   %System      %WIO     %Idle
           --------- --------- --------- --------- --------- ---------
                7.15     17.70       9.4       4.6      80.5      84.7

Foreground Wait Events                       DB/Inst: ORCL/orcl  Snaps: 37-38
-> s  - second, ms - millisecond -    1000th of a second

                                                             Avg
                                        %Time Total Wait    wait    Waits   % DB
Event                             Waits -outs   Time (s)    (ms)     /txn   time
-------------------------- ------------ ----- ---------- ------- -------- ------
db file sequential read          35,732     0      6,575     184      4.0   77.5
latch: enqueue hash chains           18     0          3     175      0.0     .0
asynch descriptor resize            132   100          0       0      0.0     .0
          -------------------------------------------------------------

SQL ordered by Elapsed Time                  DB/Inst: ORCL/orcl  Snaps: 37-38
-> Captured SQL account for   81.4% of Total DB Time (s):           8,484

        Elapsed                  Elapsed Time
        Time (s)    Executions  per Exec (s)  %Total   %CPU    %IO    SQL Id
---------------- -------------- ------------- ------ ------ ------ -------------
         4,733.3          2,047          2.31   55.8     .4   99.1 0w2qpuc6u2zsp
Module: Swingbench User Thread
BEGIN :1 := orderentry.neworder(:2 ,:3 ,:4 ); END;

          -------------------------------------------------------------

SQL ordered by Gets                          DB/Inst: ORCL/orcl  Snaps: 37-38
-> Total Buffer Gets:         731,220

     Buffer                 Gets              Elapsed
      Gets   Executions   per Exec   %Total   Time (s)   %CPU    %IO    SQL Id
----------- ----------- ------------ ------ ---------- ------ ------ -----------
    433,407       2,047        211.7   59.3    4,733.3     .4   99.1 0w2qpuc6u2z
Module: Swingbench User Thread
BEGIN :1 := orderentry.neworder(:2 ,:3 ,:4 ); END;

          -------------------------------------------------------------

Segments by Physical Writes                   DB/Inst: ORCL/orcl  Snaps: 37-38
-> Total Physical Writes:          14,720

           Tablespace                      Subobject  Obj.      Physical
Owner         Name    Object Name            Name     Type        Writes  %Total
---------- ---------- -------------------- ---------- ----- ------------ -------
SOE        SOE        ITEM_PRODUCT_IX                 INDEX        3,015   20.48
** UNAVAIL ** UNAVAIL ** UNAVAILABLE **    AILABLE ** UNDEF        1,162    7.89
          -------------------------------------------------------------

End of Report
"""


def test_numbers_as_oracle_prints_them():
    assert n.number("1,062.5") == 1062.5
    assert n.number(".8") == 0.8
    assert n.number("-.1") == -0.1
    assert n.number("1.2K") == 1200.0
    assert n.number("15M") == 15e6
    assert n.number("1.4E+03") == 1400.0
    assert n.number("") is None and n.number("N/A") is None and n.number("\\xa0") is None
    assert n.number("####") is None and n.overflowed("#######")
    assert n.duration("52.86 s") == pytest.approx(52.86)
    assert n.duration("3.23ms") == pytest.approx(0.00323)
    assert n.duration("268.69us") == pytest.approx(268.69e-6)
    assert n.duration("12ns") == pytest.approx(12e-9)
    assert n.duration("184", bare=1e-3) == pytest.approx(0.184)
    assert n.size("370M") == 370 * 1024**2
    assert n.size(".801M") == pytest.approx(0.801 * 1024**2)
    assert n.size("2.8G") == pytest.approx(2.8 * 1024**3)
    assert n.resolution("0.89") == pytest.approx(0.005)
    assert n.resolution("53") == 0.5
    assert n.resolution("3.23ms") == pytest.approx(0.005e-3)


def test_continental_separators_from_the_header():
    assert n.detect(["60,00", "0,89"]) == n.CONTINENTAL
    assert n.detect(["60.00"]) == n.ENGLISH
    assert n.number("1.062,5", n.CONTINENTAL) == 1062.5
    text = TEXT_19.replace("60.25 (mins)", "60,25 (mins)").replace("66.24 (mins)", "66,24 (mins)")
    text = text.replace("146,118.4           7,016.0", "146.118,4           7.016,0")
    r = parse("nls.txt", text.encode())
    assert r.elapsed_minutes == 60.25
    assert r.load_profile["Redo size (bytes)"] == (146118.4, 7016.0)


def test_text_19_header_and_summary():
    r = parse("awrrpt_1_2668_2669.txt", TEXT_19.encode())
    assert (r.source, r.layout, r.dbid, r.db_name, r.release) == (
        "awr",
        "awr-text-19",
        1135854311,
        "BPSC",
        "12.2.0.1.0",
    )
    assert (r.rac, r.cdb, r.edition) == (False, False, "EE")
    assert (r.begin_snap, r.end_snap) == (2668, 2669)
    assert r.begin_time == datetime(2023, 2, 4, 19, 0, 39) and r.end_time == datetime(2023, 2, 4, 20, 0, 54)
    assert (r.elapsed_minutes, r.db_time_minutes) == (60.25, 66.24)
    (i,) = r.instances
    assert (i.number, i.name, i.host, i.cpus, i.cores, i.sockets, i.memory_gb) == (
        1,
        "bpsc",
        "oracle1",
        40,
        5,
        None,
        502.0,
    )
    assert i.startup == datetime(2023, 2, 4, 15, 30)
    d = r.data[1]
    assert d.sessions == (104, 92)
    assert r.load_profile["Executes (SQL)"] == (1536.9, 73.8)
    assert r.load_profile["Transactions"] == (20.8, None)
    assert r.top_events[0] == ("DB CPU", 1234.8)
    assert ("control file sequential read", 1.9) in r.top_events
    assert d.time_model == {
        "sql execute elapsed time": 2765.8,
        "DB CPU": 1234.8,
        "DB time": 3974.4,
        "background cpu time": 16.5,
    }
    assert d.wait_classes["User I/O"] == (367040, 47.0) and d.wait_classes["DB CPU"] == (None, 1235.0)
    assert d.osstat == {"BUSY_TIME": 423547, "IDLE_TIME": 14040369, "LOAD": 3, "NUM_CPUS": 40}
    assert r.missing == []


def test_text_19_events_cut_names_mapped_back():
    r = parse("r.txt", TEXT_19.encode())
    e = r.data[1].events
    # "control file sequential re": the top list prints it whole, and the store knows it
    c = e["control file sequential read"]
    assert (c.waits_fg, c.waits_bg, c.wait_class) == (17546, 10170, "System I/O")
    # 17,546 x 109.91us = 1.9285 s is finer than the printed 2 (to the second)
    assert c.time_fg == pytest.approx(17546 * 109.91e-6)
    assert c.time_bg == pytest.approx(10170 * 115.47e-6)
    # 1,914,009 x 74.96ms rounds to +-9.6 s: the printed 143,471 (+-0.5) is finer
    s = e["SQL*Net message from client"]
    assert (s.waits_fg, s.timeouts_fg, s.time_fg, s.wait_class) == (1914009, 0, 143471.0, "Idle")
    j = e["jobq slave wait"]
    assert j.timeouts_fg == 10570  # 100 % of 10,570
    smon = e["smon timer"]
    assert (smon.waits_bg, smon.timeouts_bg) == (14, round(0.57 * 14))
    assert not any("cut short" in note and "clien" in note for note in r.notes)


def test_text_19_cut_name_nobody_knows_is_kept_and_noted():
    text = TEXT_19.replace("jobq slave wait" + " " * 11, "zzq made-up wait event abc")
    r = parse("r.txt", text.encode())
    assert "zzq made-up wait event abc" in r.data[1].events
    assert any("zzq made-up wait event abc" in note for note in r.notes)


def test_text_19_statistics_functions_histogram_sql_segments_parameters():
    r = parse("r.txt", TEXT_19.encode())
    d = r.data[1]
    assert d.sysstat["session logical reads"] == 352278864
    assert d.sysstat["shared hash latch upgrades - no wait"] == 1869143  # cut at 32, one known name
    # two statistics cut to the same text cannot be told apart: neither is kept
    assert not any(k.startswith("redo synch time overhead count") for k in d.sysstat)
    assert any("redo synch time overhead count (" in note for note in r.notes)
    b = d.io_functions["Buffer Cache Reads"]
    assert b.read_bytes == pytest.approx(2.8 * 1024**3) and b.waits == 364200
    assert b.wait_time == pytest.approx(364200 * 113.87e-6)
    assert b.read_reqs == pytest.approx(101.1 * 3615)  # per second x the snapshots' 3,615 s
    assert "TOTAL:" not in d.io_functions
    h = d.event_histograms["db file sequential read"]
    # 363.3K waits: 90.6 % under 128us ... then the detail table splits >=512us: .3 % under 1ms, .1 % under 2ms
    assert h[0.128] == round(363300 * 90.6 / 100) and h[0.512] == round(363300 * 3.6 / 100)
    assert h[1.0] == round(363300 * 0.3 / 100) and h[2.0] == round(363300 * 0.1 / 100)
    assert math.inf not in h
    assert d.parameters == {
        "control_files": "+DATA/RACDB/CONTROLFILE/current.2, +FRA/RACDB/CONTROLFILE/current.25",
        "db_block_size": "8192",
        "sga_target": "2147483648",
    }
    sql = {s.sql_id: s for s in r.sql}
    assert (sql["5bxqqbbup9tx1"].elapsed, sql["5bxqqbbup9tx1"].executions) == (710.5, 3896)
    assert sql["5bxqqbbup9tx1"].module == "php@system (TNS V1-V3)"
    assert sql["2g03fpn912qrx"].executions is None  # N/A
    # the text goes on after the page break
    assert sql["2g03fpn912qrx"].text.endswith(
        "'Blokada wystawienia/modyfikacji DM w okresie {0}', VN.NUMER_OKRESU ) ) ELSE CASE"
    )
    assert sql["cjnmy48mjkhgc"].executions == 26220
    segs = {s.object_name: s for s in r.segments}
    assert segs["I_HH_OBJ#_INTCOL#"].values == {"logical_reads": 2224}
    assert (segs["HIST_HEAD$"].owner, segs["HIST_HEAD$"].tablespace, segs["HIST_HEAD$"].object_type) == (
        "SYS",
        "SYSTEM",
        "TABLE",
    )


def test_text_11_2_layout():
    r = parse("awrrpt_11.txt", TEXT_11.encode())
    assert (r.layout, r.release, r.dbid, r.rac) == ("awr-text-11.2", "11.2.0.1.0", 1344731332, False)
    assert r.instances[0].name == "orcl" and r.instances[0].startup == datetime(2017, 2, 12, 8, 19)
    assert r.load_profile["Redo size"] == (56890.1, 2287.8)
    assert r.top_events == [("db file sequential read", 6575.0), ("latch: enqueue hash chains", 3.0)]
    e = r.data[1].events
    # Avg wait in (ms): 35,732 x 184 ms rounds to +-17.9 s, the printed 6,575 to +-0.5 s
    assert e["db file sequential read"].time_fg == 6575.0
    assert e["latch: enqueue hash chains"].wait_class == "Concurrency"
    assert e["asynch descriptor resize"].timeouts_fg == 132
    (s,) = r.sql  # the Gets section's 11-character id joined to its statement
    assert (s.sql_id, s.elapsed, s.buffer_gets, s.executions) == ("0w2qpuc6u2zsp", 4733.3, 433407, 2047)
    (seg,) = r.segments  # "** UNAVAILABLE **" rows left out
    assert (seg.owner, seg.tablespace, seg.object_name, seg.object_type, seg.values) == (
        "SOE",
        "SOE",
        "ITEM_PRODUCT_IX",
        "INDEX",
        {"physical_writes": 3015},
    )
    assert "Instance Activity Stats" in r.missing and "Operating System Statistics" in r.missing
    assert r.data[1].sysstat is None and r.data[1].osstat is None  # not printed: None, never zeros


def test_sqlplus_output_headings_dropped():
    """A report spooled from SELECT output FROM TABLE(AWR_REPORT_TEXT(...)): SQL*Plus's OUTPUT heading and the blank
    line before it at each page, mid-section."""
    text = TEXT_19.replace("      Redo size (bytes):", "\\nOUTPUT\\n      Redo size (bytes):").replace(
        "Instance     Inst Num", "\\nOUTPUT\\nInstance     Inst Num"
    )
    text = "SQL> SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT(1, 1, 2, 3));\\nOUTPUT\\n" + text
    text += "\\n1869 rows selected.\\n"
    r = parse("spool.lst", text.encode())
    assert r.load_profile["Rollbacks"] == (0.2, 0.0) and len(r.load_profile) == 6


def test_html_11_2():
    r = parse("awrrpt.html", HTML_11.encode())
    assert (r.layout, r.dbid, r.db_name, r.release, r.rac) == ("awr-html-11.2", 833766800, "ZJDQ", "11.2.0.4.0", True)
    (i,) = r.instances
    assert (i.number, i.name, i.cpus, i.cores, i.sockets, i.memory_gb) == (2, "zjdq2", 120, 60, 4, 511.8)
    assert (r.begin_snap, r.end_snap, r.elapsed_minutes, r.db_time_minutes) == (45952, 45958, 89.92, 697.79)
    assert r.data[2].sessions == (8872, 8910)
    assert r.load_profile["Redo size (bytes)"] == (2240709.3, 1746.5)
    assert r.top_events == [("DB CPU", 30800.0), ("log file sync", 3926.1)]
    e = r.data[2].events
    # the top list's tenth of a second, finer than the wait events' whole seconds (3,926)
    assert (e["log file sync"].waits_fg, e["log file sync"].time_fg) == (1217279, 3926.1)
    assert e["SQL*Net message from client"].timeouts_fg == 2700  # 10 % of 27,000
    (s,) = r.sql
    assert s.text == "BEGIN :1 := orderentry.neworder(:2 ,:3 ,:4 ); END;"  # the Complete List's, not the cut one
    assert s.module == "Swingbench User Thread" and s.elapsed == 4733.33
    assert "Background Wait Events" in r.missing and r.data[2].sysstat is None


def test_sql_text_is_data():
    html = HTML_11.replace(
        "BEGIN :1 := orderentry.neworder(:2 ,:3 ,:4 ); END;</td></tr>", "select '&lt;script&gt;' from dual</td></tr>"
    )
    (s,) = parse("x.html", html.encode()).sql
    assert s.text == "select '<script>' from dual"


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (TEXT_19.replace("End of Report", "").encode(), "cut short in section 'init.ora Parameters'"),
        (TEXT_19[: TEXT_19.index("Background Wait Events")].encode(), "cut short in section 'Foreground Wait Events'"),
        (HTML_11.replace("</body></html>", "").encode(), "cut short"),
        (b"hello, world\\n", "not an AWR or Statspack report"),
        (b"", "empty"),
        (bytes(range(256)) * 40, "binary"),
        (TEXT_19.replace("Load Profile ", "Load Summary").encode(), "no Load Profile"),
        (TEXT_19.replace("DB Name", "DB Nome").encode(), "no header"),
        (b"STATSPACK report for\\n\\nDatabase    DB Id    Instance", "Statspack"),
    ],
)
def test_refusals_name_the_file(data, says):
    with pytest.raises(ReportError) as e:
        parse("awr_9_1_2.txt", data)
    assert str(e.value).startswith("awr_9_1_2.txt: ") and says in str(e.value)


def test_decoding_bom_and_latin1():
    r = parse("bom.txt", b"\\xef\\xbb\\xbf" + TEXT_19.encode())
    assert r.db_name == "BPSC"
    latin = TEXT_19.replace("DELETE POZIOM WHERE SESJA = :B1", "DELETE POZIOM WHERE NAZWA = 'Zażółć'")
    r = parse("latin.txt", latin.encode("cp1250", errors="replace").replace(b"\\xbf", b"\\xe9"))
    assert r.sql[0].text.startswith("DELETE POZIOM WHERE NAZWA = 'Za")


def test_known_names_are_the_stores(demo_store):
    with sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True) as con:
        store = KnownNames.from_store(con)
    default = KnownNames.default()
    assert default.events == store.events and default.stats == store.stats and default.functions == store.functions


# -- the demo's reports, rendered from the store, read back against the store's rows ----------------------------------

ORCL = 1645932817


def _deltas(con, view, cols, dbid, inst, lo, hi):
    name = "event_name" if view == "dba_hist_system_event" else "stat_name"
    sums = ", ".join(f"sum(CASE snap_id WHEN ? THEN {c} ELSE -{c} END)" for c in cols)
    rows = con.execute(
        f"SELECT {name}, {sums} FROM {view} WHERE dbid = ? AND instance_number = ? AND snap_id IN (?, ?) "
        f"GROUP BY {name} HAVING count(*) = 2",
        (*[hi] * len(cols), dbid, inst, lo, hi),
    ).fetchall()
    return {r[0]: r[1:] for r in rows}


@pytest.fixture(scope="module")
def rendered(demo_store):
    from app.demo import report_files as rf

    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    hi = con.execute("SELECT max(snap_id) FROM dba_hist_snapshot WHERE dbid = ?", (ORCL,)).fetchone()[0]
    lo = hi - 2
    out = {layout: rf.awr_report_file(con, ORCL, 1, lo, hi, layout) for layout in rf.LAYOUTS if "global" not in layout}
    yield con, lo, hi, out
    con.close()


@pytest.mark.parametrize("layout", ["awr-text-19", "awr-html-19", "awr-text-11.2", "awr-html-11.2"])
def test_demo_reports_read_back_as_the_store_holds(rendered, layout):
    con, lo, hi, out = rendered
    r = parse(f"{layout}.{'html' if 'html' in layout else 'txt'}", out[layout].encode())
    assert (r.layout, r.dbid, r.begin_snap, r.end_snap, r.missing) == (layout, ORCL, lo, hi, [])
    d = r.data[1]
    stats = _deltas(con, "dba_hist_sysstat", ["value"], ORCL, 1, lo, hi)
    assert d.sysstat and d.sysstat == {k: stats[k][0] for k in d.sysstat}
    assert set(d.sysstat) <= set(stats)
    events = _deltas(con, "dba_hist_system_event", ["total_waits_fg", "time_waited_micro_fg"], ORCL, 1, lo, hi)
    fg = {k: e for k, e in d.events.items() if e.waits_fg is not None}
    assert fg
    for name, e in fg.items():
        waits, micro = events[name]
        assert e.waits_fg == waits, name
        if e.time_fg is not None:
            assert e.time_fg == pytest.approx(micro / 1e6, rel=5e-3, abs=0.51), name


def test_demo_global_report(demo_store):
    from app.demo import report_files as rf

    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    dbid = con.execute("SELECT dbid FROM dba_hist_database_instance WHERE db_name = 'RACPROD'").fetchone()[0]
    hi = con.execute("SELECT max(snap_id) FROM dba_hist_snapshot WHERE dbid = ?", (dbid,)).fetchone()[0]
    text = rf.awr_report_file(con, dbid, [1, 2], hi - 2, hi, "awr-global-text-19")
    r = parse("awrgrpt.txt", text.encode())
    assert (r.layout, r.dbid, r.rac, sorted(r.data)) == ("awr-global-text-19", dbid, True, [1, 2])
    for inst in (1, 2):
        stats = _deltas(con, "dba_hist_sysstat", ["value"], dbid, inst, hi - 2, hi)
        got = r.data[inst].sysstat
        assert got and got == {k: stats[k][0] for k in got}
    con.close()
