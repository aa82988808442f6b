// The DuckDB peer of scripts/bench: one windowed GROUP BY through the
// @duckdb/node-api package (installed by scripts/bench into scripts/.bench/).
//   node scripts/bench-duckdb.mjs INPUT.csv OUTPUT.csv SIZE_MS [THREADS]
// Reads headerless CSV ts,key,value (ts in epoch ms) and writes one row
// window_start,key,count,sum per tumbling window of SIZE_MS and key.
// THREADS (default: all cores) sets DuckDB's worker threads.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.bench', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const [input, output, sizeArg, threads] = process.argv.slice(2);
const size = Number(sizeArg);
if (!input || !output || !Number.isInteger(size) || size <= 0) {
	console.error('usage: bench-duckdb.mjs INPUT OUTPUT SIZE_MS [THREADS]');
	process.exit(2);
}
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const opts = threads ? { threads: String(threads) } : {};
const instance = await DuckDBInstance.create(':memory:', opts);
const con = await instance.connect();
await con.run(`
COPY (
  SELECT ts - ts % ${size} AS window_start, k, count(*) AS n, sum(v) AS s
  FROM read_csv(${q(input)}, header = false, delim = ',',
                columns = {'ts': 'BIGINT', 'k': 'VARCHAR', 'v': 'BIGINT'})
  GROUP BY ALL
) TO ${q(output)} (FORMAT csv, HEADER false)`);
