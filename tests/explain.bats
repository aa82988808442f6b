#!/usr/bin/env bats
# --explain flink-sql: the Flink SQL script of a pipeline (fwin(1): BEYOND
# ONE MACHINE). Exact scripts for a few pipelines; every window kind and
# aggregate checked against a Flink SQL grammar (dt-sql-parser's FlinkSQL
# parser, installed with npm into $FLINKSQL on first use); the
# pipelines without a counterpart.
load common

# Prepares the grammar checker once: dt-sql-parser and esbuild from npm in
# $FLINKSQL (common.bash), and tests/explain/check.mjs bundled into
# check.cjs there. A later run finds check.cjs newer than its source and
# does nothing; an interrupted one is finished. Prints why it cannot.
flinksql_checker() {
	local dir=$FLINKSQL src=$BATS_TEST_DIRNAME/explain/check.mjs
	if ! command -v node > /dev/null; then
		echo "node is not installed"
		return 1
	fi
	if [ -s "$dir/check.cjs" ] && [ "$dir/check.cjs" -nt "$src" ]; then
		return 0
	fi
	if ! command -v npm > /dev/null; then
		echo "npm is not installed"
		return 1
	fi
	mkdir -p "$dir" || return 1
	[ -f "$dir/package.json" ] || echo '{ "private": true }' > "$dir/package.json"
	if [ ! -f "$dir/node_modules/dt-sql-parser/package.json" ] ||
		[ ! -x "$dir/node_modules/.bin/esbuild" ]; then
		if ! timeout 300 npm install --prefix "$dir" --no-audit --no-fund \
			--fetch-retries=1 --fetch-timeout=30000 \
			--loglevel=error dt-sql-parser esbuild > "$dir/npm.log" 2>&1; then
			echo "npm install dt-sql-parser esbuild failed (see $dir/npm.log)"
			return 1
		fi
	fi
	cp "$src" "$dir/check.mjs" &&
		"$dir/node_modules/.bin/esbuild" "$dir/check.mjs" --bundle \
			--platform=node --format=cjs --log-level=error \
			--outfile="$dir/check.cjs.tmp" > "$dir/esbuild.log" 2>&1 &&
		mv "$dir/check.cjs.tmp" "$dir/check.cjs" || {
		echo "bundling the checker failed (see $dir/esbuild.log)"
		return 1
	}
}

setup_file() {
	local why
	if ! why=$(flinksql_checker); then
		export FLINKSQL_SKIP=$why
	fi
}

# grammar FILE...: the Flink SQL grammar check (skips when it cannot run).
grammar() {
	[ -z "${FLINKSQL_SKIP:-}" ] || skip "Flink SQL grammar check: $FLINKSQL_SKIP"
	node "$FLINKSQL/check.cjs" "$@"
}

# expect: the expected script on stdin, with @DIR@ for the test's directory.
expect() {
	sed "s|@DIR@|$(pwd -P)|g"
}

@test "tumbling windows, -H, a sum and a max-by: the exact script" {
	printf 'ts,user,amount\n1700000000,alice,2.50\n' > in.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k user --tumble 1m -l 10s --count --sum amount --max-by amount:user -o out.csv in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(expect <<'SQL'
-- Flink SQL for the fwin pipeline
--   --format csv
--   --delimiter default
--   --header
--   --key user
--   --time ts
--   --time-format auto
--   --tumble 1m
--   --offset 0s
--   --lateness 10s
--   --allowed-lateness 0s
--   aggregates --count --sum amount --max-by amount:user
--   (--time-format auto: the input's times are s)
--
-- What Flink SQL does not keep exactly of fwin's semantics, and the nearest
-- equivalent. For every pipeline in event time:
-- * Watermark: fwin advances it after every record; Flink emits it
--   periodically (pipeline.auto-watermark-interval, 200 ms), so a record
--   fwin drops as late may be on time in Flink. Nearest:
--   'scan.watermark.emit.strategy' = 'on-event' (Flink 1.18+, sources that
--   support it).
-- * Firing: Flink fires a window when the watermark reaches its end less 1
--   ms, fwin when it reaches its end; the watermark's delay is therefore
--   -l plus 1 ms, which keeps fwin's rule for times in whole milliseconds.
-- * Late records: Flink drops them without a word (the
--   numLateRecordsDropped metric); fwin counts them at exit.
-- * Time precision: Flink's event time is in milliseconds; fwin keeps the
--   input's unit.
-- * Stream and batch: this is a streaming job, as fwin runs the pipeline
--   (late records dropped); with 'execution.runtime-mode' = 'batch' Flink
--   sorts a bounded input by time and drops no record as late.
-- * Bad records: fwin skips and reports each one; a value that does not
--   CAST fails the Flink job. Nearest: TRY_CAST, which makes it NULL and
--   keeps the record.
-- * Output: fwin prints rows in (end, start, key) order and the bounds as
--   --output-time says; Flink's rows come in no defined order across
--   parallel tasks, with TIMESTAMP(3) bounds (a filesystem sink writes a
--   directory of part files, committed at checkpoints).
-- For this pipeline:
-- * Epoch seconds are read as whole seconds; for fractions use
--   TO_TIMESTAMP_LTZ(CAST(CAST(t AS DECIMAL(20, 3)) * 1000 AS BIGINT), 3).
-- * Sums: fwin sums decimals exactly (SQL's DECIMAL) and prints them
--   without trailing zeros; here they are DOUBLE. Nearest: CAST(f AS
--   DECIMAL(38, S)) with S the data's decimals (printed with S of them).
-- * min-by and max-by: the window's Top-1 by ROW_NUMBER(), joined to the
--   window's row; ties go to the earlier event time (fwin: the first
--   record to arrive); a key with an empty field is NULL here and its cell
--   stays empty.
-- * -H: Flink's csv format has no header option: remove the header line
--   before Flink reads the file (tail -n +2), and no header row is
--   written.

SET 'execution.runtime-mode' = 'streaming';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE `source` (
  `ts` STRING,
  `user` STRING,
  `amount` STRING,
  `event_time` AS TO_TIMESTAMP_LTZ(CAST(`ts` AS BIGINT), 0),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '10.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/in.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `user` STRING,
  `count` BIGINT,
  `sum_amount` DOUBLE,
  `max_by_amount` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/out.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW `windowed` AS
SELECT * FROM TABLE(
  TUMBLE(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '1' MINUTE));

INSERT INTO `sink`
SELECT
  a.window_start,
  a.window_end,
  a.`user`,
  a.`count`,
  a.`sum_amount`,
  b1.`max_by_amount`
FROM (
  SELECT
    window_start,
    window_end,
    `user`,
    COUNT(*) AS `count`,
    SUM(CAST(`amount` AS DOUBLE)) AS `sum_amount`
  FROM `windowed`
  GROUP BY window_start, window_end, `user`
) AS a
LEFT JOIN (
  SELECT window_start, window_end, `user`, `max_by_amount`
  FROM (
    SELECT
      window_start,
      window_end,
      `user`,
      `user` AS `max_by_amount`,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end, `user`
        ORDER BY CAST(`amount` AS DOUBLE) DESC, `event_time` ASC) AS `rn`
    FROM `windowed`
    WHERE `amount` IS NOT NULL)
  WHERE `rn` = 1
) AS b1
ON a.window_start = b1.window_start AND a.window_end = b1.window_end
  AND a.`user` = b1.`user`;
SQL
)"
}

@test "sliding windows with an offset, two keys, json to a file: the exact script" {
	printf '1700000000000 a r 7\n' > in
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format ms -k 2,3 --slide 1h,10m --offset 5m --distinct 4 -o out.json --output-format json in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(expect <<'SQL'
-- Flink SQL for the fwin pipeline
--   --format lines
--   --delimiter default
--   no --header
--   --key 2,3
--   --time 1
--   --time-format ms
--   --slide 1h,10m
--   --offset 5m
--   --lateness 0s
--   --allowed-lateness 0s
--   aggregates --distinct 4
--
-- What Flink SQL does not keep exactly of fwin's semantics, and the nearest
-- equivalent. For every pipeline in event time:
-- * Watermark: fwin advances it after every record; Flink emits it
--   periodically (pipeline.auto-watermark-interval, 200 ms), so a record
--   fwin drops as late may be on time in Flink. Nearest:
--   'scan.watermark.emit.strategy' = 'on-event' (Flink 1.18+, sources that
--   support it).
-- * Firing: Flink fires a window when the watermark reaches its end less 1
--   ms, fwin when it reaches its end; the watermark's delay is therefore
--   -l plus 1 ms, which keeps fwin's rule for times in whole milliseconds.
-- * Late records: Flink drops them without a word (the
--   numLateRecordsDropped metric); fwin counts them at exit.
-- * Time precision: Flink's event time is in milliseconds; fwin keeps the
--   input's unit.
-- * Stream and batch: this is a streaming job, as fwin runs the pipeline
--   (late records dropped); with 'execution.runtime-mode' = 'batch' Flink
--   sorts a bounded input by time and drops no record as late.
-- * Bad records: fwin skips and reports each one; a value that does not
--   CAST fails the Flink job. Nearest: TRY_CAST, which makes it NULL and
--   keeps the record.
-- * Output: fwin prints rows in (end, start, key) order and the bounds as
--   --output-time says; Flink's rows come in no defined order across
--   parallel tasks, with TIMESTAMP(3) bounds (a filesystem sink writes a
--   directory of part files, committed at checkpoints).
-- For this pipeline:
-- * Columns: without -H they are named f1 to f4, the last one the pipeline
--   uses; Flink's csv format maps columns by position, so declare the
--   input's later columns after them.
-- * Fields split on runs of blanks: Flink's csv format splits on every
--   space; squeeze them first (tr -s ' \t' ' ').

SET 'execution.runtime-mode' = 'streaming';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE `source` (
  `f1` STRING,
  `f2` STRING,
  `f3` STRING,
  `f4` STRING,
  `event_time` AS TO_TIMESTAMP_LTZ(CAST(`f1` AS BIGINT), 3),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/in',
  'format' = 'csv',
  'csv.field-delimiter' = ' ',
  'csv.disable-quote-character' = 'true',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `key1` STRING,
  `key2` STRING,
  `distinct_4` BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/out.json',
  'format' = 'json'
);

INSERT INTO `sink`
SELECT
  window_start,
  window_end,
  `f2` AS `key1`,
  `f3` AS `key2`,
  COUNT(DISTINCT `f4`) AS `distinct_4`
FROM TABLE(
  HOP(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '10' MINUTE, INTERVAL '1' HOUR, INTERVAL '5' MINUTE))
GROUP BY window_start, window_end, `f2`, `f3`;
SQL
)"
}

@test "session windows, ISO times, tsv, a checkpoint: the exact script" {
	printf '2026-11-29T20:37:03Z\ta\t3\n' > in.tsv
	run --separate-stderr fwin --explain flink-sql --tsv -t 1 -k 2 --session 30m --max 3 --first 3 --state s.ckpt in.tsv
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(expect <<'SQL'
-- Flink SQL for the fwin pipeline
--   --format tsv
--   --delimiter default
--   no --header
--   --key 2
--   --time 1
--   --time-format auto
--   --session 30m
--   --offset 0s
--   --lateness 0s
--   --allowed-lateness 0s
--   aggregates --max 3 --first 3
--   (--time-format auto: the input's times are iso)
--
-- What Flink SQL does not keep exactly of fwin's semantics, and the nearest
-- equivalent. For every pipeline in event time:
-- * Watermark: fwin advances it after every record; Flink emits it
--   periodically (pipeline.auto-watermark-interval, 200 ms), so a record
--   fwin drops as late may be on time in Flink. Nearest:
--   'scan.watermark.emit.strategy' = 'on-event' (Flink 1.18+, sources that
--   support it).
-- * Firing: Flink fires a window when the watermark reaches its end less 1
--   ms, fwin when it reaches its end; the watermark's delay is therefore
--   -l plus 1 ms, which keeps fwin's rule for times in whole milliseconds.
-- * Late records: Flink drops them without a word (the
--   numLateRecordsDropped metric); fwin counts them at exit.
-- * Time precision: Flink's event time is in milliseconds; fwin keeps the
--   input's unit.
-- * Stream and batch: this is a streaming job, as fwin runs the pipeline
--   (late records dropped); with 'execution.runtime-mode' = 'batch' Flink
--   sorts a bounded input by time and drops no record as late.
-- * Bad records: fwin skips and reports each one; a value that does not
--   CAST fails the Flink job. Nearest: TRY_CAST, which makes it NULL and
--   keeps the record.
-- * Output: fwin prints rows in (end, start, key) order and the bounds as
--   --output-time says; Flink's rows come in no defined order across
--   parallel tasks, with TIMESTAMP(3) bounds, on the task managers'
--   standard output (the print connector).
-- For this pipeline:
-- * ISO times are read as UTC ('T' and 'Z' removed); a time with another
--   offset needs TO_TIMESTAMP(t, pattern) with its offset, or
--   'table.local-time-zone'.
-- * min and max: fwin prints the value as the input wrote it; here it is
--   the DOUBLE (2.50 prints 2.5).
-- * FIRST_VALUE and LAST_VALUE follow the order in which records reach the
--   aggregate: the input's order only with parallelism 1 (SET
--   'parallelism.default' = '1').
-- * Sessions are a legacy GROUP BY SESSION window; Flink 1.19+ also has the
--   window table function: TABLE(SESSION(TABLE source PARTITION BY keys,
--   DESCRIPTOR(time), gap)).
-- * Cron replay of a growing file (--checkpoint, --state): fwin resumes
--   from the bytes an earlier run consumed and keeps open windows unfired.
--   Nearest: one long-running job with checkpoints over a Kafka topic, or
--   'source.monitor-interval' for new files in a directory (a file that
--   grows is not re-read); stop it with a savepoint and restore from it.
-- * Columns: without -H they are named f1 to f3, the last one the pipeline
--   uses; Flink's csv format maps columns by position, so declare the
--   input's later columns after them.

SET 'execution.runtime-mode' = 'streaming';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE `source` (
  `f1` STRING,
  `f2` STRING,
  `f3` STRING,
  `event_time` AS TO_TIMESTAMP(REPLACE(REPLACE(`f1`, 'T', ' '), 'Z', '')),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/in.tsv',
  'format' = 'csv',
  'csv.field-delimiter' = '\t',
  'csv.disable-quote-character' = 'true',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `key1` STRING,
  `max_3` DOUBLE,
  `first_3` STRING
) WITH (
  'connector' = 'print'
);

INSERT INTO `sink`
SELECT
  SESSION_START(`event_time`, INTERVAL '30' MINUTE) AS `window_start`,
  SESSION_END(`event_time`, INTERVAL '30' MINUTE) AS `window_end`,
  `f2` AS `key1`,
  MAX(CAST(`f3` AS DOUBLE)) AS `max_3`,
  FIRST_VALUE(`f3`) AS `first_3`
FROM `source`
GROUP BY SESSION(`event_time`, INTERVAL '30' MINUTE), `f2`;
SQL
)"
}

@test "cumulating windows, --tz, ISO times, a median: the exact script" {
	printf 'ts,user,amount\n2026-11-29T20:37:03,alice,2.50\n' > in.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k user --tz Europe/Berlin --cumulate 1d,1h --sum amount --median amount in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(expect <<'SQL'
-- Flink SQL for the fwin pipeline
--   --format csv
--   --delimiter default
--   --header
--   --key user
--   --time ts
--   --time-format auto
--   --tz Europe/Berlin
--   --cumulate 1d,1h
--   --offset 0s
--   --lateness 0s
--   --allowed-lateness 0s
--   aggregates --sum amount --median amount
--   (--time-format auto: the input's times are iso)
--
-- What Flink SQL does not keep exactly of fwin's semantics, and the nearest
-- equivalent. For every pipeline in event time:
-- * Watermark: fwin advances it after every record; Flink emits it
--   periodically (pipeline.auto-watermark-interval, 200 ms), so a record
--   fwin drops as late may be on time in Flink. Nearest:
--   'scan.watermark.emit.strategy' = 'on-event' (Flink 1.18+, sources that
--   support it).
-- * Firing: Flink fires a window when the watermark reaches its end less 1
--   ms, fwin when it reaches its end; the watermark's delay is therefore
--   -l plus 1 ms, which keeps fwin's rule for times in whole milliseconds.
-- * Late records: Flink drops them without a word (the
--   numLateRecordsDropped metric); fwin counts them at exit.
-- * Time precision: Flink's event time is in milliseconds; fwin keeps the
--   input's unit.
-- * Stream and batch: this is a streaming job, as fwin runs the pipeline
--   (late records dropped); with 'execution.runtime-mode' = 'batch' Flink
--   sorts a bounded input by time and drops no record as late.
-- * Bad records: fwin skips and reports each one; a value that does not
--   CAST fails the Flink job. Nearest: TRY_CAST, which makes it NULL and
--   keeps the record.
-- * Output: fwin prints rows in (end, start, key) order and the bounds as
--   --output-time says; Flink's rows come in no defined order across
--   parallel tasks, with TIMESTAMP(3) bounds, on the task managers'
--   standard output (the print connector).
-- For this pipeline:
-- * ISO times are read as times of the session time zone, a 'Z' too ('T'
--   and 'Z' removed); a time with another offset needs TO_TIMESTAMP(t,
--   pattern) with its offset.
-- * Sums: fwin sums decimals exactly (SQL's DECIMAL) and prints them
--   without trailing zeros; here they are DOUBLE. Nearest: CAST(f AS
--   DECIMAL(38, S)) with S the data's decimals (printed with S of them).
-- * --tz Europe/Berlin: it is the session time zone
--   ('table.local-time-zone'); times written without an offset are read in
--   it (a TIMESTAMP cast to TIMESTAMP_LTZ); Flink prints window bounds as
--   TIMESTAMP(3) times of that zone, without an offset.
-- * Calendar days and weeks (d, w) are windows of INTERVAL days: Flink
--   aligns windows over a TIMESTAMP_LTZ time to the epoch in the session
--   time zone, so they start at local midnight as fwin's do; check the
--   days that change the zone's offset (summer time), which fwin makes 23
--   and 25 hours long.
-- * Percentiles: PERCENTILE(f, P/100) is Flink 2.0's (Flink 1.x has none: a
--   user-defined aggregate function is the nearest); it interpolates
--   between the closest ranks as fwin does.
-- * -H: Flink's csv format has no header option: remove the header line
--   before Flink reads the file (tail -n +2), and no header row is
--   written.

SET 'execution.runtime-mode' = 'streaming';
SET 'table.local-time-zone' = 'Europe/Berlin';

CREATE TABLE `source` (
  `ts` STRING,
  `user` STRING,
  `amount` STRING,
  `event_time` AS CAST(TO_TIMESTAMP(REPLACE(REPLACE(`ts`, 'T', ' '), 'Z', '')) AS TIMESTAMP_LTZ(3)),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/in.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `user` STRING,
  `sum_amount` DOUBLE,
  `median_amount` DOUBLE
) WITH (
  'connector' = 'print'
);

INSERT INTO `sink`
SELECT
  window_start,
  window_end,
  `user`,
  SUM(CAST(`amount` AS DOUBLE)) AS `sum_amount`,
  PERCENTILE(CAST(`amount` AS DOUBLE), 0.50) AS `median_amount`
FROM TABLE(
  CUMULATE(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '1' HOUR, INTERVAL '1' DAY))
GROUP BY window_start, window_end, `user`;
SQL
)"
}

@test "a window Top-N by a percentile, ascending, tsv to a file: the exact script" {
	printf '1700000000000 a 7\n' > in
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format ms -k 2 --tumble 1m --count --percentile 3:90 --top 3 --top-by p90_3:asc --output-format tsv -o out.tsv in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(expect <<'SQL'
-- Flink SQL for the fwin pipeline
--   --format lines
--   --delimiter default
--   no --header
--   --key 2
--   --time 1
--   --time-format ms
--   --tumble 1m
--   --offset 0s
--   --lateness 0s
--   --allowed-lateness 0s
--   aggregates --count --percentile 3:90
--
-- What Flink SQL does not keep exactly of fwin's semantics, and the nearest
-- equivalent. For every pipeline in event time:
-- * Watermark: fwin advances it after every record; Flink emits it
--   periodically (pipeline.auto-watermark-interval, 200 ms), so a record
--   fwin drops as late may be on time in Flink. Nearest:
--   'scan.watermark.emit.strategy' = 'on-event' (Flink 1.18+, sources that
--   support it).
-- * Firing: Flink fires a window when the watermark reaches its end less 1
--   ms, fwin when it reaches its end; the watermark's delay is therefore
--   -l plus 1 ms, which keeps fwin's rule for times in whole milliseconds.
-- * Late records: Flink drops them without a word (the
--   numLateRecordsDropped metric); fwin counts them at exit.
-- * Time precision: Flink's event time is in milliseconds; fwin keeps the
--   input's unit.
-- * Stream and batch: this is a streaming job, as fwin runs the pipeline
--   (late records dropped); with 'execution.runtime-mode' = 'batch' Flink
--   sorts a bounded input by time and drops no record as late.
-- * Bad records: fwin skips and reports each one; a value that does not
--   CAST fails the Flink job. Nearest: TRY_CAST, which makes it NULL and
--   keeps the record.
-- * Output: fwin prints rows in (end, start, key) order and the bounds as
--   --output-time says; Flink's rows come in no defined order across
--   parallel tasks, with TIMESTAMP(3) bounds (a filesystem sink writes a
--   directory of part files, committed at checkpoints).
-- For this pipeline:
-- * --top 3: a window Top-N, ROW_NUMBER() over each window's rows, empty
--   cells (NULL) last; ties go to the smaller key, compared as strings, as
--   fwin's.
-- * Percentiles: PERCENTILE(f, P/100) is Flink 2.0's (Flink 1.x has none: a
--   user-defined aggregate function is the nearest); it interpolates
--   between the closest ranks as fwin does.
-- * Columns: without -H they are named f1 to f3, the last one the pipeline
--   uses; Flink's csv format maps columns by position, so declare the
--   input's later columns after them.
-- * Fields split on runs of blanks: Flink's csv format splits on every
--   space; squeeze them first (tr -s ' \t' ' ').

SET 'execution.runtime-mode' = 'streaming';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE `source` (
  `f1` STRING,
  `f2` STRING,
  `f3` STRING,
  `event_time` AS TO_TIMESTAMP_LTZ(CAST(`f1` AS BIGINT), 3),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/in',
  'format' = 'csv',
  'csv.field-delimiter' = ' ',
  'csv.disable-quote-character' = 'true',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `key1` STRING,
  `count` BIGINT,
  `p90_3` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/out.tsv',
  'format' = 'csv',
  'csv.field-delimiter' = '\t',
  'csv.disable-quote-character' = 'true'
);

INSERT INTO `sink`
SELECT
  window_start,
  window_end,
  `key1`,
  `count`,
  `p90_3`
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY window_start, window_end
      ORDER BY `p90_3` ASC NULLS LAST, `key1` ASC) AS `rownum`
  FROM (
    SELECT
      window_start,
      window_end,
      `f2` AS `key1`,
      COUNT(*) AS `count`,
      PERCENTILE(CAST(`f3` AS DOUBLE), 0.90) AS `p90_3`
    FROM TABLE(
      TUMBLE(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end, `f2`
  )
)
WHERE `rownum` <= 3;
SQL
)"
}

@test "--global is a GROUP BY of the keys; weeks start on Monday; the new aggregates" {
	printf '1700000000 a 2\n' > in
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2 --global --count in
	assert_success
	assert_output --partial "$(cat <<'SQL'
INSERT INTO `sink`
SELECT
  CAST(MIN(`event_time`) AS TIMESTAMP(3)) AS `window_start`,
  CAST(MAX(`event_time`) AS TIMESTAMP(3)) AS `window_end`,
  `f2` AS `key1`,
  COUNT(*) AS `count`
FROM `source`
GROUP BY `f2`;
SQL
)"
	assert_line "-- * --global: a GROUP BY of the keys, not a window: Flink emits an updated"
	run fwin --explain flink-sql -t 1 --time-format s --tz Europe/Berlin --cumulate 2w,1d --offset 1h in
	assert_success
	assert_line "  CUMULATE(TABLE \`source\`, DESCRIPTOR(\`event_time\`), INTERVAL '1' DAY, INTERVAL '14' DAY, INTERVAL '-71' HOUR))"
	assert_line "SET 'table.local-time-zone' = 'Europe/Berlin';"
	run fwin --explain flink-sql -t 1 --time-format s --tumble 1m --stddev 3 --var-pop 3 \
		--percentile 3:0.5,100 --approx-distinct 2 in
	assert_success
	assert_line "  STDDEV_SAMP(CAST(\`f3\` AS DOUBLE)) AS \`stddev_3\`,"
	assert_line "  VAR_POP(CAST(\`f3\` AS DOUBLE)) AS \`var_pop_3\`,"
	assert_line "  PERCENTILE(CAST(\`f3\` AS DOUBLE), 0.005) AS \`p0.5_3\`,"
	assert_line "  PERCENTILE(CAST(\`f3\` AS DOUBLE), 1.00) AS \`p100_3\`,"
	assert_line "  COUNT(DISTINCT \`f2\`) AS \`approx_distinct_2\`"
}

@test "--follow: the source's monitor interval, and what Flink follows" {
	printf '1 a 2\n' > in
	run --separate-stderr fwin --explain flink-sql -F -t 1 --time-format s -k 2 --tumble 1m --count in other
	assert_success
	assert_line "  'source.monitor-interval' = '1s',"
	assert_line "-- * --follow: with 'source.monitor-interval' Flink's filesystem source"
	assert_line "--   follows new files in a directory, not the bytes appended to a file,"
	refute_output --partial "FILEs in order as one stream"
	printf '%s\n' "$output" > follow.sql
	run grammar follow.sql
	assert_success
	assert_output ""
}

@test "the grammar check runs, and fails on a broken script" {
	printf '1 a 2\n' > in
	fwin --explain flink-sql -t 1 --time-format s -k 2 --tumble 1m --count \
		in > good.sql
	run grammar good.sql
	assert_success
	assert_output ""
	# one parenthesis less, and a misspelt keyword: each is found
	sed 's/DESCRIPTOR(`event_time`)/DESCRIPTOR(`event_time`/' good.sql > paren.sql
	sed 's/^GROUP BY/GROUP/' good.sql > group.sql
	for f in paren.sql group.sql; do
		! cmp -s "$f" good.sql
		run grammar "$f"
		assert_failure 1
		assert_regex "$output" "^$f:[0-9]+:[0-9]+: "
	done
}

@test "grammar: every window kind with every aggregate, every input and time format" {
	printf 'ts,user,region,amount\n1700000000,alice,eu,2.50\n' > in.csv
	all="--count --sum amount --avg amount --min amount --max amount"
	all+=" --first user --last user --distinct user --median amount"
	all+=" --percentile amount:5,99.9 --approx-percentile amount:50"
	all+=" --stddev amount --var amount --stddev-pop amount --var-pop amount"
	all+=" --approx-distinct user --histogram amount:0.5,10,250"
	by="--min-by amount --max-by amount:region"
	n=0
	ex() {
		n=$((n + 1))
		fwin --explain flink-sql "$@" > "s$n.sql" || {
			echo "status $? for: $*" >&2
			return 1
		}
	}
	for w in "--tumble 1m" "--tumble 1h --offset -5m" "--slide 1h,10m" \
		"--slide 100m,7m" "--slide 1m,5m" "--session 30s" \
		"--tumble 36h" "--slide 24h,90m" "--cumulate 1h,10m" \
		"--cumulate 1d,1h --offset 2h" "--tumble 1d" "--tumble 2w" \
		"--slide 2d,1d" "--cumulate 1w,1d" "--global"; do
		ex --csv -H -t ts -k user,region $w $all in.csv
		ex --csv -H -t ts $w --count in.csv
		ex --csv -H -k user $w $all in.csv		# processing time
		ex --csv -H -t ts -k user,region --tz Europe/Berlin $w $all in.csv
		case $w in
		--session*) ;;
		*)	ex --csv -H -t ts -k user $w --count --sum amount --top 2 in.csv
			ex --csv -H -t ts -k user,region $w $all --top 1 \
				--top-by p99.9_amount:asc -o out.csv in.csv ;;
		esac
		case $w in
		--session* | --global) ;;
		*)	ex --csv -H -t ts -k user $w --count --fill in.csv ;;
		esac
		case $w in
		--tumble* | --slide* | --global)
			ex --csv -H -t ts -k user $w --count --emit-every 10s in.csv ;;
		esac
		case $w in
		--session* | --global | "--slide 100m,7m" | "--slide 1m,5m") ;;
		*)	ex --csv -H -t ts -k user $w $all $by -o out.csv in.csv
			ex --csv -H -t ts $w $by --output-format json -o o.json in.csv ;;
		esac
	done
	# json: nested paths as ROW types; times in two fields
	printf '{"ts":1700000000,"u":{"id":"a","geo":{"c":"de"}},"n":2}\n' > in.json
	ex --json -t ts -k u.id,u.geo.c --tumble 1m $all in.json
	printf '2026-11-29 20:37:03 a 2\n' > two.log
	ex -t 1,2 -k 3 --tz America/Los_Angeles --cumulate 1d,1h --sum 4 two.log
	grep -q "CAST(TO_TIMESTAMP(REPLACE(REPLACE(CONCAT(\`f1\`, ' ', \`f2\`), 'T', ' '), 'Z', '')) AS TIMESTAMP_LTZ(3))" "s$n.sql"
	ex -t 1,2 --time-format '%Y-%m-%d %H:%M:%S' -k 3 --tumble 1h --count two.log
	for tf in s ms us ns iso "%d/%b/%Y:%H:%M:%S %z" "%Y-%m-%dT%H:%M:%S"; do
		ex -t 1 --time-format "$tf" -k 2 --tumble 5m --count -l 90s \
			--allowed-lateness 1m --idle-timeout 5s --late-file late in.csv
	done
	ex --tsv -t 1 --time-format s -k 3 --session 5m --sum 2 --state s.ckpt a b
	ex -d '|' -t 1 --time-format s -k 3 --tumble 1m --min-by 2 in.csv
	ex -d "'" -t 1 --time-format s -k 3 --tumble 1m --min-by 2 in.csv
	ex --csv -d ';' -t 1 --time-format s -k 3 --tumble 1m --count --partition 2/4 in.csv
	ex -t 1 --time-format s --tumble 250ms --count --strict
	printf 'event_time,x\n1,2\n' > clash.csv
	ex --csv -H -t event_time -k x --tumble 1s --max-by x clash.csv
	grep -q '`event_time_` AS TO_TIMESTAMP_LTZ' "s$n.sql"
	[ "$n" -eq 150 ]	# every script above was written
	run grammar s*.sql
	assert_success
	assert_output ""
}

@test "interval literals: the largest unit under 100, else DAY TO SECOND" {
	sizes=(250ms 1s 90s 100s 1m 99m 100m 1h 36h 1d 99d 1h30m1ms 150d)
	want=("'0.250' SECOND" "'1' SECOND" "'90' SECOND" "'0 00:01:40' DAY TO SECOND" "'1' MINUTE"
		"'99' MINUTE" "'0 01:40:00' DAY TO SECOND" "'1' HOUR" "'36' HOUR"
		"'1' DAY" "'99' DAY" "'0 01:30:00.001' DAY TO SECOND"
		"'150 00:00:00' DAY(3) TO SECOND")
	for i in "${!sizes[@]}"; do
		run fwin --explain flink-sql -t 1 --time-format s --tumble "${sizes[$i]}" in
		assert_success
		assert_line --partial "DESCRIPTOR(\`event_time\`), INTERVAL ${want[$i]}))"
	done
}

@test "the watermark's delay is -l plus 1 ms, rounded up to a millisecond" {
	for l in "0s '0.001' SECOND" "10s '10.001' SECOND" "1h '0 01:00:00.001' DAY TO SECOND" \
		"1500us '0.003' SECOND"; do
		run fwin --explain flink-sql -t 1 --time-format s --tumble 1m -l "${l%% *}" in
		assert_success
		assert_line "  WATERMARK FOR \`event_time\` AS \`event_time\` - INTERVAL ${l#* }"
	done
}

@test "pipelines with no Flink SQL counterpart exit 2 and name it" {
	printf '1 a 2\n' > in
	check() {
		local want=$1
		shift
		run --separate-stderr fwin --explain flink-sql "$@"
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "fwin: --explain flink-sql: $want"
	}
	check "--count-window (count windows) has no Flink SQL counterpart" \
		-t 1 -k 2 --count-window 5 in
	check "rolling mode (no window option) has no Flink SQL counterpart" \
		-t 1 -k 2 --sum 3 in
	check "a window size, step or offset finer than a millisecond has no Flink SQL counterpart" \
		-t 1 --tumble 1500us in
	check "--min-by or --max-by with a legacy group window (--session, or --slide whose step does not divide its size) has no Flink SQL counterpart" \
		-t 1 --session 1m --min-by 3 in
	check "--offset with a legacy group window (--session, or --slide whose step does not divide its size) has no Flink SQL counterpart" \
		-t 1 --slide 10m,3m --offset 1m in
	check "--time-format: the conversion %s has no Flink SQL counterpart" \
		-t 1 --time-format %s --tumble 1m in
	check "no record tells the time format; give --time-format" \
		-t 1 --tumble 1m /dev/null
	check "a window of months, quarters or years (mo, q, y) has no Flink SQL counterpart" \
		-t 1 --tumble 1mo in
	check "a window of months, quarters or years (mo, q, y) has no Flink SQL counterpart" \
		-t 1 --cumulate 1y,1q in
	check "a window of months, quarters or years (mo, q, y) has no Flink SQL counterpart" \
		-t 1 --cumulate 1mo,1d in
	check "--cumulate whose step does not divide its size has no Flink SQL counterpart" \
		-t 1 --cumulate 1d,7h in
	check "the reset rule of --increase 3 and --rate 3 has no Flink SQL counterpart" \
		-t 1 -k 2 --tumble 1m --increase 3 --count --rate 3 in
	check "--min-by or --max-by with --global has no Flink SQL counterpart" \
		-t 1 -k 2 --global --max-by 3 in
	printf '{"t":1,"u":{"id":"a"}}\n' > in.json
	check "--json: the path 'u' as a value and as an object has no Flink SQL counterpart" \
		--json -t t -k u,u.id --tumble 1m in.json
	check "--min-by or --max-by without OUT (the whole record) with --json has no Flink SQL counterpart" \
		--json -t t --tumble 1m --min-by t in.json
	run --separate-stderr fwin --explain sql -t 1 --tumble 1m in
	assert_failure 2
	assert_regex "$stderr" "^fwin: --explain: unknown explanation 'sql' \(flink-sql or plan\)"
}

@test "--explain reads no more than it needs, and writes nothing but the script" {
	# without -H and with a --time-format, not even the input is opened
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format ms \
		--tumble 1m --state s.ckpt -o out nosuchfile
	assert_success
	assert_equal "$stderr" ""
	[ ! -e s.ckpt ] && [ ! -e out ]
	assert_line "  'path' = 'file://$(pwd -P)/nosuchfile',"
	# with -H, a missing input is an error (its header names the columns)
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --tumble 1m nosuchfile
	assert_failure 1
	# --time-format auto: the first record whose time tells the format
	printf 'x\n1700000000000\n' > in
	run fwin --explain flink-sql -t 1 --tumble 1m in
	assert_success
	assert_line "--   (--time-format auto: the input's times are ms)"
	assert_line "  \`event_time\` AS TO_TIMESTAMP_LTZ(CAST(\`f1\` AS BIGINT), 3),"
}

@test "--over and --over-rows: an OVER aggregation per record, and the grammar takes it" {
	printf 'ts,host,lat\n2026-01-01T00:00:00Z,web,10\n' > in.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host \
		--over 1h --avg lat --count in.csv
	assert_success
	assert_output --partial "$(cat <<'SQL'
CREATE TABLE `sink` (
  `ts` STRING,
  `host` STRING,
  `lat` STRING,
  `avg_lat` DOUBLE,
  `count` BIGINT
) WITH (
  'connector' = 'print'
);

INSERT INTO `sink`
SELECT
  `ts`,
  `host`,
  `lat`,
  AVG(CAST(`lat` AS DOUBLE)) OVER (PARTITION BY `host`
    ORDER BY `event_time` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS `avg_lat`,
  COUNT(*) OVER (PARTITION BY `host`
    ORDER BY `event_time` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS `count`
FROM `source`;
SQL
)"
	assert_line "-- * --over: Flink's bounded OVER operators judge lateness per key (a row is"
	echo "$output" > range.sql
	run fwin --explain flink-sql --csv -H -t ts --over-rows 10 --sum lat --max lat in.csv
	assert_success
	assert_line "  SUM(CAST(\`lat\` AS DOUBLE)) OVER (ORDER BY \`event_time\` ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS \`sum_lat\`,"
	echo "$output" > rows.sql
	run grammar range.sql rows.sql
	assert_success
	run --separate-stderr fwin --explain flink-sql --json -t ts --over 1h --count in.csv
	assert_failure 2
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --over 1h --max-by lat in.csv
	assert_failure 2
}

@test "--over and --over-rows: --where is the query's WHERE, an --if its aggregate's CASE WHEN" {
	printf 'ts,host,status,bytes\n1,a,200,10\n5,a,500,30\n' > w.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host \
		--over 1h --count --where 'status > 1' w.csv
	assert_success
	assert_output --partial "$(cat <<'SQL'
INSERT INTO `sink`
SELECT
  `ts`,
  `host`,
  `status`,
  `bytes`,
  COUNT(*) OVER (PARTITION BY `host`
    ORDER BY `event_time` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS `count`
FROM `source`
WHERE (CAST(`status` AS DOUBLE) > 1);
SQL
)"
	echo "$output" > where.sql
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host \
		--over-rows 3 --count --if 'status >= 500' --as err \
		--sum bytes --if 'status >= 500' w.csv
	assert_success
	assert_output --partial "$(cat <<'SQL'
INSERT INTO `sink`
SELECT
  `ts`,
  `host`,
  `status`,
  `bytes`,
  COUNT(CASE WHEN (CAST(`status` AS DOUBLE) >= 500) THEN 1 END) OVER (PARTITION BY `host`
    ORDER BY `event_time` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS `err`,
  SUM(CAST(CASE WHEN (CAST(`status` AS DOUBLE) >= 500) THEN `bytes` END AS DOUBLE)) OVER (PARTITION BY `host`
    ORDER BY `event_time` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS `sum_bytes`
FROM `source`;
SQL
)"
	echo "$output" > if.sql
	run grammar where.sql if.sql
	assert_success
}

@test "--over: --having and --eval name the record's fields and the aggregates, as a run does" {
	printf 'ts,host,lat\n1,a,10\n2,a,11\n' > req.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host \
		--over 1h --avg lat --stddev lat --eval 'd=$3-avg_lat' \
		--having 'lat > avg_lat + 3 * stddev_lat' req.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output --partial "$(cat <<'SQL'
INSERT INTO `sink`
SELECT *
FROM (
  SELECT *, (CAST(`lat` AS DOUBLE) - CAST(`avg_lat` AS DOUBLE)) AS `d`
  FROM (
    SELECT
      `ts`,
      `host`,
      `lat`,
      AVG(CAST(`lat` AS DOUBLE)) OVER (PARTITION BY `host`
        ORDER BY `event_time` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS `avg_lat`,
      STDDEV_SAMP(CAST(`lat` AS DOUBLE)) OVER (PARTITION BY `host`
        ORDER BY `event_time` RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS `stddev_lat`
    FROM `source`
  ) AS `r1`
) AS `r2`
WHERE (CAST(`lat` AS DOUBLE) > (CAST(`avg_lat` AS DOUBLE) + (3 * CAST(`stddev_lat` AS DOUBLE))));
SQL
)"
	echo "$output" > having.sql
	run grammar having.sql
	assert_success
	# a table's columns have names of their own
	printf 'ts,k,count\n1,a,5\n' > dup.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k k --over 1h --count dup.csv
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: --explain flink-sql: two columns of the sink are named 'count'; name one apart with --as"
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k k --tumble 1h --count --if 'count > 1' --count dup.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --explain flink-sql: two columns of the sink are named 'count'; name one apart with --as"
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k k --over 1h --count --as n dup.csv
	assert_success
	# the window's bounds are no column of an OVER row
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host \
		--over 1h --count --having 'window_start > 0' req.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --having: at 1: no column 'window_start'"
}

@test "--eval: the sink declares each column by its value's type, a comparison as the 1 or 0 fwin prints" {
	printf 'ts,k,v\n1,a,5\n2,a,7\n70,a,1\n' > in.csv
	args=(--csv -H -t ts -k k --tumble 1m --count --sum v
		--eval 'm=coalesce(count, 1)' --eval 'big=sum_v > 10'
		--eval 'i=if(big, sum_v, 0)' --eval 'l=if(big, "y", "n")'
		--where v --having m in.csv)
	run --separate-stderr fwin "${args[@]}"
	assert_success
	assert_output "$(cat <<'CSV'
window_start,window_end,k,count,sum_v,m,big,i,l
0,60,a,2,12,2,1,12,y
60,120,a,1,1,1,0,0,n
CSV
)"
	run --separate-stderr fwin --explain flink-sql "${args[@]}"
	assert_success
	assert_equal "$stderr" ""
	# an aggregate is a number, a value in a boolean place a condition
	assert_output --partial "$(cat <<'SQL'
CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `k` STRING,
  `count` BIGINT,
  `sum_v` DOUBLE,
  `m` DOUBLE,
  `big` BIGINT,
  `i` DOUBLE,
  `l` STRING
) WITH (
  'connector' = 'print'
);

INSERT INTO `sink`
SELECT *
FROM (
  SELECT *, IF((`big` <> 0), 'y', 'n') AS `l`
  FROM (
    SELECT *, IF((`big` <> 0), CAST(`sum_v` AS DOUBLE), 0) AS `i`
    FROM (
      SELECT *, CASE (CAST(`sum_v` AS DOUBLE) > 10) WHEN TRUE THEN 1 WHEN FALSE THEN 0 END AS `big`
      FROM (
        SELECT *, COALESCE(CAST(`count` AS DOUBLE), 1) AS `m`
        FROM (
          SELECT
            window_start,
            window_end,
            `k`,
            COUNT(*) AS `count`,
            SUM(CAST(`v` AS DOUBLE)) AS `sum_v`
          FROM TABLE(
            TUMBLE(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '1' MINUTE))
          WHERE (`v` IS NOT NULL AND `v` <> '0' AND LOWER(`v`) <> 'false')
          GROUP BY window_start, window_end, `k`
        ) AS `r1`
      ) AS `r2`
    ) AS `r3`
  ) AS `r4`
) AS `r5`
WHERE (`m` <> 0);
SQL
)"
	printf '%s\n' "$output" > eval.sql
	run grammar eval.sql
	assert_success
	assert_output ""
}

@test "a header that names two fields alike: the later one is the column \$N, as an expression names it" {
	printf 'ts,x,x\n1,a,5\n' > dup.csv
	run --separate-stderr fwin --csv -H -t ts -k 2,3 --tumble 1m --sum 3 dup.csv
	assert_success
	assert_output $'window_start,window_end,x,x,sum_x\n0,60,a,5,5'
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k 2,3 --tumble 1m --sum 3 dup.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output --partial "$(expect <<'SQL'
CREATE TABLE `source` (
  `ts` STRING,
  `x` STRING,
  `$3` STRING,
  `event_time` AS TO_TIMESTAMP_LTZ(CAST(`ts` AS BIGINT), 0),
  WATERMARK FOR `event_time` AS `event_time` - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'file://@DIR@/dup.csv',
  'format' = 'csv',
  'csv.null-literal' = ''
  -- or a Kafka topic instead of the file:
  -- 'connector' = 'kafka',
  -- 'topic' = 'input',
  -- 'properties.bootstrap.servers' = 'localhost:9092',
  -- 'scan.startup.mode' = 'earliest-offset',
  -- 'format' = 'csv'
);

CREATE TABLE `sink` (
  `window_start` TIMESTAMP(3),
  `window_end` TIMESTAMP(3),
  `x` STRING,
  `$3` STRING,
  `sum_x` DOUBLE
) WITH (
  'connector' = 'print'
);

INSERT INTO `sink`
SELECT
  window_start,
  window_end,
  `x`,
  `$3`,
  SUM(CAST(`$3` AS DOUBLE)) AS `sum_x`
FROM TABLE(
  TUMBLE(TABLE `source`, DESCRIPTOR(`event_time`), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, `x`, `$3`;
SQL
)"
	printf '%s\n' "$output" > keys.sql
	# the later key first: it keeps the name, the other is $2
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k 3,2 --tumble 1m --count dup.csv
	assert_success
	assert_line "  \`\$3\` AS \`x\`,"
	assert_line "  \`x\` AS \`\$2\`,"
	printf '%s\n' "$output" > swapped.sql
	# --over: the record's columns too; a name taken already gets a _
	printf 'ts,$4,x,x\n1,a,b,5\n' > dup2.csv
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --over 1h --count --having '$4 > 1' dup2.csv
	assert_success
	assert_line "  \`\$4_\` STRING,"
	assert_line "WHERE (CAST(\`\$4_\` AS DOUBLE) > 1);"
	printf '%s\n' "$output" > over.sql
	# the name alone is both fields, as a run has it
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --over 1h --count --having 'x > 1' dup.csv
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: --having: at 1: 'x' names two columns, \$2 and \$3; name one apart with --as, or write \$N"
	run grammar keys.sql swapped.sql over.sql
	assert_success
	assert_output ""
}

@test "--changelog and -o sqlite: an upsert sink with a primary key, a JDBC table commented" {
	printf '1 a b 2\n' > in
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2,3 \
		--tumble 1m --count --changelog -o sqlite:web.db:traffic in
	assert_success
	assert_equal "$stderr" ""
	assert_line "  PRIMARY KEY (\`window_start\`, \`window_end\`, \`key1\`, \`key2\`) NOT ENFORCED"
	assert_line "-- SQLite table \`traffic\` of 'web.db'; Flink's JDBC connector has no SQLite dialect."
	assert_line "--   'connector' = 'jdbc',"
	assert_line "--   'table-name' = 'traffic'"
	printf '%s\n' "$output" > upsert.sql
	run grammar upsert.sql
	assert_success
	# the global window's bounds move: its key alone
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2 \
		--global --count --changelog in
	assert_success
	assert_line "  PRIMARY KEY (\`key1\`) NOT ENFORCED"
	printf '%s\n' "$output" > global.sql
	run grammar global.sql
	assert_success
	# without either, no key
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2 --tumble 1m in
	refute_line --partial "PRIMARY KEY"
}

@test "--top-by that names no column, or a text one: the same message as a run, with the names it may mean" {
	printf '1,a\n' > in
	for args in "--top-by totl --sum 1 --count --eval total=count" \
		"--top-by sum --sum 1" "--top-by first_2 --first 2" \
		"--top-by nope --count"; do
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --top 2 $args in
		assert_failure 2
		local want=$stderr
		run --separate-stderr fwin --explain flink-sql --time-format s --csv -t 1 -k 2 --tumble 5s --top 2 $args in
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "$want"
	done
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'nope'"
	run --separate-stderr fwin --explain flink-sql --time-format s --csv -t 1 -k 2 --tumble 5s --top 2 --top-by sum --sum 1 in
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'sum'; did you mean 'sum_1'?"
}
