// `npm run bench [-- service|canonical|ocr|ocr-memory|extraction|models|delivery|embedded-db|text-in-images|text-scaling|statements] [bench options]`: runs one benchmark
// (the service bench by default: every ratio of docs/performance.md against its anchor).
const BENCHES: Record<string, string> = { service: './service.bench.ts', canonical: './canonical.bench.ts', ocr: './ocr.bench.ts', 'ocr-memory': './ocr-memory.bench.ts', extraction: './extraction.bench.ts', models: './models.bench.ts', delivery: './delivery.bench.ts', 'embedded-db': './embedded-db.bench.ts', 'text-in-images': './text-in-images.bench.ts', 'text-scaling': './text-scaling.bench.ts', statements: './statements.bench.ts' };

const name = process.argv[2] && !process.argv[2].startsWith('-') ? process.argv[2] : 'service';
const file = BENCHES[name];
if (!file) {
  process.stderr.write(`unknown benchmark "${name}"; choose one of: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}
if (name === process.argv[2]) process.argv.splice(2, 1);
await import(file);
