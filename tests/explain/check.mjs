// Grammar check of Flink SQL scripts with dt-sql-parser's FlinkSQL parser:
// node check.cjs FILE...; prints each error as FILE:LINE:COLUMN: message
// and exits 1 when any file has one. tests/explain.bats bundles this file
// with esbuild (the package's ESM build needs a bundler) and caches it.
import { FlinkSQL } from 'dt-sql-parser';
import { readFileSync } from 'node:fs';

const parser = new FlinkSQL();
let failed = 0;
for (const file of process.argv.slice(2)) {
	const sql = readFileSync(file, 'utf8');
	// the parser's own listener prints to the console: keep it quiet
	const saved = [console.log, console.error, console.warn];
	console.log = console.error = console.warn = () => {};
	let errors;
	try {
		errors = parser.validate(sql);
	} finally {
		[console.log, console.error, console.warn] = saved;
	}
	for (const e of errors)
		process.stdout.write(`${file}:${e.startLine}:${e.startColumn}: ${e.message}\n`);
	if (errors.length > 0)
		failed = 1;
}
process.exit(failed);
