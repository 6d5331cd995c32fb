// A remote file read over SFTP as a stream, so a source's file goes to the staging area (hashed as
// it is written, like an upload) and is never held in memory whole. A plain SFTP read asks for one
// block and waits for it before asking for the next, which makes every block cost a round trip;
// this keeps several block requests in flight and hands the blocks on in order. At most
// IN_FLIGHT blocks are asked for ahead, and none while the reader is not taking them, so the
// memory of a read is bounded whatever the file's size.
import { Readable } from 'node:stream';
import type { SFTPWrapper } from 'ssh2';

/** Below the read length every server accepts (a longer read is split into requests made one after the other). */
const BLOCK = 32 * 1024;
const IN_FLIGHT = 16;

interface Block {
  offset: number;
  done: boolean;
  data: Buffer | null;
  error: Error | null;
}

/** Opens the file (a missing or unreadable file fails here) and answers a stream of its bytes. */
export async function openRemoteRead(sftp: SFTPWrapper, file: string): Promise<Readable> {
  const handle = await new Promise<Buffer>((resolve, reject) => sftp.open(file, 'r', (err, opened) => (err ? reject(err) : resolve(opened))));
  return new RemoteFileStream(sftp, handle);
}

class RemoteFileStream extends Readable {
  /** Where the next block to ask for starts. */
  private next = 0;
  /** Blocks asked for, in file order; the first is handed on as soon as it arrives. */
  private blocks: Block[] = [];
  private wanted = false;
  private atEnd = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private handle: Buffer | null,
  ) {
    super({ highWaterMark: BLOCK * IN_FLIGHT });
  }

  override _read(): void {
    this.wanted = true;
    this.handOn();
  }

  private askAhead(): void {
    while (this.wanted && !this.atEnd && !this.destroyed && this.handle && this.blocks.length < IN_FLIGHT) {
      const block: Block = { offset: this.next, done: false, data: null, error: null };
      this.next += BLOCK;
      this.blocks.push(block);
      const buffer = Buffer.allocUnsafe(BLOCK);
      this.sftp.read(this.handle, buffer, 0, BLOCK, block.offset, (err, bytesRead) => {
        block.done = true;
        if (err) block.error = err;
        else block.data = buffer.subarray(0, bytesRead);
        this.handOn();
      });
    }
  }

  /** Hands on the blocks that arrived, in order, then asks for more while the reader wants them. */
  private handOn(): void {
    while (!this.destroyed && !this.atEnd && this.blocks[0]?.done) {
      const block = this.blocks.shift()!;
      if (block.error) {
        this.destroy(block.error);
        return;
      }
      const data = block.data!;
      if (data.length === 0) {
        // The end of the file; the blocks asked for past it are dropped.
        this.atEnd = true;
        this.blocks = [];
        this.push(null);
        return;
      }
      if (data.length < BLOCK) {
        // A server may answer a read with fewer bytes than asked (and does at the end of the file):
        // the blocks asked for after it are dropped and the file is read on from where it stopped.
        this.blocks = [];
        this.next = block.offset + data.length;
      }
      if (!this.push(data)) this.wanted = false;
    }
    this.askAhead();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = null;
    this.blocks = [];
    if (handle) {
      // Not waited for: the connection may be gone already, and the handle went with it then.
      try {
        this.sftp.close(handle, () => undefined);
      } catch {
        // (the same)
      }
    }
    callback(err);
  }
}
