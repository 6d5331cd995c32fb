// `npm run bench [-- canonical|ocr|extraction] [bench options]`: runs one benchmark (canonical by default).
const BENCHES: Record<string, string> = { canonical: './canonical.bench.ts', ocr: './ocr.bench.ts', extraction: './extraction.bench.ts' };

const name = process.argv[2] && !process.argv[2].startsWith('-') ? process.argv[2] : 'canonical';
const file = BENCHES[name];
if (!file) {
  process.stderr.write(`unknown benchmark "${name}"; choose one of: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}
if (name === process.argv[2]) process.argv.splice(2, 1);
await import(file);
