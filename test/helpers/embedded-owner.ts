// A Quire process that owns the embedded PostgreSQL under the data dir given and keeps running,
// for tests that crash it (SIGKILL) and leave its server behind. Prints "up" once it serves.
import pino from 'pino';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';

await startEmbeddedPostgres(process.argv[2]!, pino({ level: 'silent' }), 'quire');
process.stdout.write('up\n');
setInterval(() => undefined, 1 << 30);
