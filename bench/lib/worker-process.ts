// A `quire worker` process from the TypeScript sources, for the queue bench:
// `node --import tsx bench/lib/worker-process.ts <concurrency>`.
import { main } from '../../src/cli.js';

await main(['worker', '--concurrency', process.argv[2] ?? '1']);
