// The DuckDB peer of scripts/bench: one windowed GROUP BY through the
// @duckdb/node-api package (installed by scripts/bench into scripts/.bench/).
//   node scripts/bench-duckdb.mjs INPUT OUTPUT SIZE_MS [THREADS [KIND]]
// Writes one headerless CSV row per tumbling window of SIZE_MS and key.
// THREADS (default, or "all": all cores) sets DuckDB's worker threads.
// KIND (default sum) is the question and the input:
//   sum        headerless CSV ts,key,value (ts in epoch ms) ->
//              window_start,key,count,sum
//   quantile   the same CSV -> window_start,key,p50,p99: quantile_cont(v,
//              [0.5, 0.99]), exact with linear interpolation (R type 7)
//   json       JSON Lines {"ts":...,"k":"...","v":...} through read_json
//              (newline_delimited) -> window_start,key,count,sum
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.bench', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const [input, output, sizeArg, threads, kind = 'sum'] = process.argv.slice(2);
const size = Number(sizeArg);
if (!input || !output || !Number.isInteger(size) || size <= 0 ||
    !['sum', 'quantile', 'json'].includes(kind)) {
	console.error('usage: bench-duckdb.mjs INPUT OUTPUT SIZE_MS [THREADS [sum|quantile|json]]');
	process.exit(2);
}
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const opts = threads && threads !== 'all' ? { threads: String(threads) } : {};
const instance = await DuckDBInstance.create(':memory:', opts);
const con = await instance.connect();
const columns = "{'ts': 'BIGINT', 'k': 'VARCHAR', 'v': 'BIGINT'}";
const csv = `read_csv(${q(input)}, header = false, delim = ',', columns = ${columns})`;
const query = {
	sum: `
  SELECT ts - ts % ${size} AS window_start, k, count(*) AS n, sum(v) AS s
  FROM ${csv}
  GROUP BY ALL`,
	quantile: `
  SELECT window_start, k, q[1] AS p50, q[2] AS p99 FROM (
    SELECT ts - ts % ${size} AS window_start, k,
           quantile_cont(v, [0.5, 0.99]) AS q
    FROM ${csv}
    GROUP BY ALL)`,
	json: `
  SELECT ts - ts % ${size} AS window_start, k, count(*) AS n, sum(v) AS s
  FROM read_json(${q(input)}, format = 'newline_delimited', columns = ${columns})
  GROUP BY ALL`,
}[kind];
await con.run(`COPY (${query}) TO ${q(output)} (FORMAT csv, HEADER false)`);
