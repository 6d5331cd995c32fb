// `quire worker` from the TypeScript sources, for campaign scripts that spawn and kill workers.
import { main } from '../../src/cli.js';

main(['worker', ...process.argv.slice(2)]).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
