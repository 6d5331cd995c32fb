// Memory of taking one large file from a source: the read a poll makes (store.read) staged and
// hashed into the blob store's staging area, then moved into a local blob store, exactly as a poll
// stores a file before it inserts the job. The server (SFTP on ssh2, or s3rver) runs in a child
// process, so only the taking side's memory is measured; each run is a fresh process.
//   npx tsx bench/source-memory.ts [--protocol sftp|s3|local] [--mb 200]
// Prints the file's size, the process's peak RSS (getrusage maxRSS) and its peak heap and
// ArrayBuffer (Buffer) use sampled every 5 ms, each as it was before the read and at its peak.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openStore } from '../src/connectors/index.js';
import { LocalBlobStore } from '../src/storage/local-store.js';
import { stageStream } from '../src/storage/staging.js';

const MiB = 2 ** 20;
const self = fileURLToPath(import.meta.url);

interface Served {
  protocol: 'sftp' | 's3';
  dir: string;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

/** Child mode: serve a directory over SFTP or S3 and print how to reach it, until killed. */
async function serve(protocol: string): Promise<void> {
  if (protocol === 'sftp') {
    const { startSftpServer } = await import('../test/helpers/sftp-server.js');
    const s = await startSftpServer();
    fs.mkdirSync(path.join(s.root, 'in'));
    const served: Served = { protocol, dir: path.join(s.root, 'in'), config: { host: s.host, port: s.port, username: s.username, path: '/in', host_key_sha256: s.hostKeySha256 }, credentials: { password: s.password } };
    process.stdout.write(`${JSON.stringify(served)}\n`);
    process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
  } else {
    const { startS3Server, S3RVER_CREDENTIALS } = await import('../test/helpers/s3-server.js');
    const s = await startS3Server('inbox');
    // s3rver keeps an object's bytes in <directory>/<bucket>/<key>._S3rver_object beside its metadata
    // files; the parent uploads the object through the API instead of writing there.
    const served: Served = { protocol: 's3', dir: s.directory, config: { bucket: s.bucket, prefix: 'in', endpoint_url: s.endpoint, force_path_style: true }, credentials: S3RVER_CREDENTIALS };
    process.stdout.write(`${JSON.stringify(served)}\n`);
    process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
  }
}

async function startServer(protocol: string): Promise<{ served: Served; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, self, '--serve', protocol], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { served: JSON.parse(line) as Served, stop: () => child.kill('SIGTERM') };
}

/** A file of `mb` MiB: one random MiB repeated with a counter, so no two MiB are alike. */
function writeBigFile(file: string, mb: number): string {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < mb; i++) {
    block.writeUInt32BE(i, 0);
    fs.writeSync(fd, block);
    hash.update(block);
  }
  fs.closeSync(fd);
  return hash.digest('hex');
}

async function measure(protocol: string, mb: number): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-source-memory-'));
  const blobs = new LocalBlobStore(path.join(work, 'blobs'));
  let stop = () => {};
  try {
    let config: Record<string, unknown>;
    let credentials: Record<string, unknown> = {};
    let sha256: string;
    const name = 'big-scan.bin';
    if (protocol === 'local') {
      fs.mkdirSync(path.join(work, 'root/bench/in'), { recursive: true });
      sha256 = writeBigFile(path.join(work, 'root/bench/in', name), mb);
      config = { path: 'in' };
    } else {
      const server = await startServer(protocol);
      stop = server.stop;
      ({ config, credentials } = server.served);
      if (protocol === 'sftp') {
        sha256 = writeBigFile(path.join(server.served.dir, name), mb);
      } else {
        const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
        const file = path.join(work, name);
        sha256 = writeBigFile(file, mb);
        const client = new S3Client({ region: 'us-east-1', endpoint: String(config.endpoint_url), forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
        await client.send(new PutObjectCommand({ Bucket: String(config.bucket), Key: `in/${name}`, Body: fs.createReadStream(file), ContentLength: mb * MiB }));
        client.destroy();
        fs.rmSync(file);
      }
    }
    const store = await openStore(
      { tenant_id: 'bench', protocol: protocol as 'local', config, credentials },
      { config: { localRoot: path.join(work, 'root'), extraCaCerts: null } as never, guard: { allowPrivateNetwork: true } },
    );
    const [listed] = await store.list();
    if (listed?.name !== name) throw new Error(`the source listed ${JSON.stringify(listed)}`);
    global.gc?.();
    const before = { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, buffers: process.memoryUsage().arrayBuffers, maxRss: process.resourceUsage().maxRSS * 1024 };
    const peak = { ...before };
    const sample = setInterval(() => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heap = Math.max(peak.heap, m.heapUsed);
      peak.buffers = Math.max(peak.buffers, m.arrayBuffers);
    }, 5);
    const started = performance.now();
    const staged = await stageStream(await store.read(name), blobs.stagingDir, Number.MAX_SAFE_INTEGER);
    await blobs.putStaged(staged);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sample);
    await store.close();
    peak.maxRss = process.resourceUsage().maxRSS * 1024;
    if (staged.sha256 !== sha256 || staged.size !== mb * MiB) throw new Error('the stored file differs from the source file');
    const m = (n: number) => Math.round(n / MiB);
    process.stdout.write(
      `${JSON.stringify({
        protocol,
        file_mib: mb,
        seconds: Number(seconds.toFixed(1)),
        peak_rss_mib: m(peak.maxRss),
        rss_before_mib: m(before.rss),
        rss_growth_mib: m(peak.maxRss - before.rss),
        heap_before_mib: m(before.heap),
        heap_peak_mib: m(peak.heap),
        buffers_before_mib: m(before.buffers),
        buffers_peak_mib: m(peak.buffers),
        intact: true,
      })}\n`,
    );
  } finally {
    stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { protocol: { type: 'string', default: 'sftp' }, mb: { type: 'string', default: '200' }, serve: { type: 'string' } } });
if (values.serve) await serve(values.serve);
else await measure(values.protocol!, Number(values.mb));
