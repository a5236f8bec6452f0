## Invalid dates in text are NULL in a SELECT.
T|SELECT DATE('2023-02-30'), CAST('2023-02-30' AS DATE), CAST('2024-01-05 25:00:00' AS DATETIME), YEAR('2023-13-01'), DAYOFMONTH('2023-02-29')
T|SELECT DATE_ADD('2023-02-30', INTERVAL 1 DAY), DATEDIFF('2023-02-30', '2023-01-01'), LAST_DAY('2023-02-30'), DATE_FORMAT('2023-02-30', '%Y'), TO_DAYS('2023-02-30')
T|SELECT id, DATE(s), DATE_ADD(s, INTERVAL 1 DAY), DAYOFMONTH(s) FROM bt ORDER BY id
## Intervals that leave the years 1-9999 are NULL.
T|SELECT DATE_ADD(DATE '9999-12-31', INTERVAL 1 DAY), DATE_ADD(DATE '2024-01-01', INTERVAL 10000 YEAR), DATE_SUB(DATE '0001-01-01', INTERVAL 1 DAY), DATE_ADD(TIMESTAMP '9999-12-31 23:59:59', INTERVAL 1 SECOND)
T|SELECT d + INTERVAL 8000 YEAR, ts - INTERVAL 2030 YEAR, ts - INTERVAL 2023 YEAR FROM bt ORDER BY id
## An interval's text that is no number counts as 0; a large count of seconds is fine.
T|SELECT DATE '2024-01-01' + INTERVAL 'abc' DAY, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL 9999999999 SECOND, DATE '2024-01-01' + INTERVAL '1:2' DAY_HOUR
## Division by zero is NULL in a SELECT.
T|SELECT 1/0, 1 DIV 0, 1 % 0, x / 0, x % 0 FROM bt ORDER BY id
## Storing an invalid value fails the whole statement (strict mode).
T|INSERT INTO bt (id, d) VALUES (3, '2024-01-01'), (4, '2023-02-30')
T|INSERT INTO bt (id, ts) VALUES (3, '2024-01-05 25:00:00')
T|INSERT INTO bt (id, d) VALUES (3, 'abc')
T|INSERT INTO bt (id, x) VALUES (3, 12345.6)
T|INSERT INTO bt (id, x) VALUES (3, 'abc')
T|UPDATE bt SET d = s
T|UPDATE bt SET x = x * 1000
T|SELECT id, d, ts, x, s FROM bt ORDER BY id
## An integer column rounds a decimal half away from zero.
T|INSERT INTO bt (id) VALUES (2.5)
T|SELECT id FROM bt ORDER BY id
## BETWEEN and IN lists read text that is no date as the zero date, below every date (MySQL 8 and MariaDB alike).
T|SELECT id, d BETWEEN '' AND '2025-01-01', d NOT BETWEEN 'abc' AND '2025-01-01', d IN ('abc', '2024-02-29'), d NOT IN (''), ts BETWEEN 'x' AND '2024-03-01' FROM bt ORDER BY id
T|SELECT DATE '2024-01-01' IN ('abc'), DATE '2024-01-01' NOT IN ('', '2023-01-01'), TIMESTAMP '2024-01-01 10:00:00' BETWEEN '' AND '2024-01-02'
