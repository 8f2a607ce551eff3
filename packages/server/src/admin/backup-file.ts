// The backup file: a stream of named entries (manifest, secrets key, database, agents' stores),
// encrypted as a whole under BACKUP_PASSPHRASE: scrypt derives the keys, AES-256-GCM encrypts and
// authenticates everything after the header (the header too, as associated data). A verifier in
// the header tells a wrong passphrase apart at once; a changed or truncated file fails the tag,
// checked before anything of it is put in place (restore.ts stages entries, then moves them).
//
//   "BERTHBK1" | log2 N (1) | r (1) | p (1) | salt (16) | iv (12) | verifier (32)   header, 71 bytes
//   AES-256-GCM( frames… end-frame )                                                  body
//   tag (16)
//   frame: name length u16 BE | name (utf8) | size u64 BE | bytes;   end-frame: name length 0
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';

const MAGIC = Buffer.from('BERTHBK1');
const HEADER_BYTES = MAGIC.length + 3 + 16 + 12 + 32;
const TAG_BYTES = 16;
const SCRYPT = { log2N: 15, r: 8, p: 1 };

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

function deriveKeys(passphrase: string, salt: Buffer, log2N: number, r: number, p: number) {
  if (log2N < 14 || log2N > 20 || r < 1 || r > 16 || p < 1 || p > 4)
    throw new BackupError('This is not a Berth backup file (its header is not one Berth writes).');
  const k = scryptSync(passphrase, salt, 64, { N: 2 ** log2N, r, p, maxmem: 256 * 1024 * 1024 });
  return { enc: k.subarray(0, 32), check: k.subarray(32) };
}

const verifier = (checkKey: Buffer, headerStart: Buffer) => createHmac('sha256', checkKey).update(headerStart).digest();

/** Where an entry's bytes come from: a file (streamed) or bytes in memory. */
export type EntrySource = { name: string; file: string; size: number } | { name: string; bytes: Buffer };

async function writeAll(fh: FileHandle, b: Buffer) {
  let off = 0;
  while (off < b.length) off += (await fh.write(b, off)).bytesWritten;
}

function frameHead(name: string, size: number): Buffer {
  const n = Buffer.from(name, 'utf8');
  const head = Buffer.alloc(2 + n.length + 8);
  head.writeUInt16BE(n.length, 0);
  n.copy(head, 2);
  head.writeBigUInt64BE(BigInt(size), 2 + n.length);
  return head;
}

/** Writes `entries` encrypted to `file` (created 0600; it must not exist). */
export async function writeBackupFile(file: string, passphrase: string, entries: Iterable<EntrySource>) {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const start = Buffer.concat([MAGIC, Buffer.from([SCRYPT.log2N, SCRYPT.r, SCRYPT.p]), salt, iv]);
  const keys = deriveKeys(passphrase, salt, SCRYPT.log2N, SCRYPT.r, SCRYPT.p);
  const header = Buffer.concat([start, verifier(keys.check, start)]);
  const cipher = createCipheriv('aes-256-gcm', keys.enc, iv);
  cipher.setAAD(header);
  const fh = await open(file, 'wx', 0o600);
  try {
    await writeAll(fh, header);
    const put = async (plain: Buffer) => {
      const out = cipher.update(plain);
      if (out.length) await writeAll(fh, out);
    };
    for (const e of entries) {
      if ('bytes' in e) {
        await put(frameHead(e.name, e.bytes.length));
        await put(e.bytes);
        continue;
      }
      await put(frameHead(e.name, e.size));
      let seen = 0;
      if (e.size > 0)
        for await (const chunk of createReadStream(e.file, { start: 0, end: e.size - 1 })) {
          seen += (chunk as Buffer).length;
          await put(chunk as Buffer);
        }
      if (seen !== e.size) throw new BackupError(`${e.name} changed size while it was backed up`);
    }
    await put(Buffer.from([0, 0]));
    await writeAll(fh, cipher.final());
    await writeAll(fh, cipher.getAuthTag());
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Entry names are relative paths of the archive's own making: nothing that climbs out of the staging dir. */
function safeName(name: string): string {
  const n = normalize(name);
  if (!name || n.startsWith('..') || n.startsWith(sep) || n.includes(`${sep}..${sep}`) || n.includes('\0'))
    throw new BackupError('The backup file was changed or is damaged (an entry has a bad name).');
  return n;
}

/**
 * Decrypts `file` into `stagingDir` (which must exist, empty) and returns the entry names. Throws
 * BackupError for a wrong passphrase, or a changed or truncated file; what was staged is then
 * the caller's to remove, and nothing of it may be used.
 */
export async function readBackupFile(file: string, passphrase: string, stagingDir: string): Promise<string[]> {
  const fh = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new BackupError(`Cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const damaged = () =>
    new BackupError('The backup file was changed or is truncated: its authentication failed. Nothing was restored.');
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(HEADER_BYTES);
    if (size < HEADER_BYTES || (await fh.read(header, 0, HEADER_BYTES, 0)).bytesRead !== HEADER_BYTES)
      throw new BackupError('This is not a Berth backup file (too short).');
    if (!header.subarray(0, MAGIC.length).equals(MAGIC)) throw new BackupError('This is not a Berth backup file.');
    let o = MAGIC.length;
    const [log2N, r, p] = [header[o]!, header[o + 1]!, header[o + 2]!];
    o += 3;
    const salt = header.subarray(o, o + 16);
    const iv = header.subarray(o + 16, o + 28);
    const check = header.subarray(o + 28);
    const keys = deriveKeys(passphrase, salt, log2N, r, p);
    const expected = verifier(keys.check, header.subarray(0, o + 28));
    if (!timingSafeEqual(expected, check))
      throw new BackupError('BACKUP_PASSPHRASE does not open this backup (wrong passphrase). Nothing was restored.');
    if (size < HEADER_BYTES + TAG_BYTES + 2) throw damaged();
    const tag = Buffer.alloc(TAG_BYTES);
    await fh.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', keys.enc, iv);
    decipher.setAAD(header);
    decipher.setAuthTag(tag);

    const parser = new FrameParser(stagingDir, damaged);
    const stream = createReadStream('', {
      fd: fh.fd,
      start: HEADER_BYTES,
      end: size - TAG_BYTES - 1,
      autoClose: false,
    });
    for await (const chunk of stream) parser.push(decipher.update(chunk as Buffer));
    try {
      parser.push(decipher.final());
    } catch {
      parser.abort();
      throw damaged();
    }
    if (!parser.ended) throw damaged();
    return parser.names;
  } finally {
    await fh.close();
  }
}

/** Splits the plaintext into entries, each written to its file under the staging dir. */
class FrameParser {
  names: string[] = [];
  ended = false;
  private buf: Buffer = Buffer.alloc(0);
  private fd: number | undefined;
  private left = 0;

  constructor(
    private readonly dir: string,
    private readonly damaged: () => BackupError,
  ) {}

  push(chunk: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.fd !== undefined) {
        const take = Math.min(this.left, this.buf.length);
        if (take) writeSync(this.fd, this.buf, 0, take);
        this.buf = this.buf.subarray(take);
        this.left -= take;
        if (this.left > 0) return;
        closeSync(this.fd);
        this.fd = undefined;
        continue;
      }
      if (this.ended) {
        if (this.buf.length) throw this.damaged();
        return;
      }
      if (this.buf.length < 2) return;
      const n = this.buf.readUInt16BE(0);
      if (n === 0) {
        this.ended = true;
        this.buf = this.buf.subarray(2);
        continue;
      }
      if (this.buf.length < 2 + n + 8) return;
      const name = safeName(this.buf.subarray(2, 2 + n).toString('utf8'));
      const size = Number(this.buf.readBigUInt64BE(2 + n));
      this.buf = this.buf.subarray(2 + n + 8);
      const target = join(this.dir, name);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      this.fd = openSync(target, 'wx', 0o600);
      this.left = size;
      this.names.push(name);
    }
  }

  abort() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
