// An input file as a stream of lines, whatever its compression: gzip and zstd are recognised by
// their magic numbers, anything else is read as it is. One chunk of the file, one zstd frame and
// the line being assembled are held at a time, so memory does not follow the file's size. The
// bytes read so far are reported for progress, and an input cut short (a torn zstd frame, a gzip
// stream without its end) is noted in `cutShort`, after what could be decoded was yielded.
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import { setImmediate } from 'node:timers/promises'
import * as zlib from 'node:zlib'

const CHUNK = 1 << 20
const ZSTD_MAGIC = 0xfd2fb528

/** The lines of a file: `{ text, number, complete }`, `complete` false for a last line without its newline. */
export class Lines {
  /** Set once the input is read, when it was cut short: how (a phrase). */
  cutShort

  constructor(path, { onBytes } = {}) {
    this.path = path
    this.onBytes = onBytes ?? (() => {})
  }

  async * [Symbol.asyncIterator]() {
    let pending = []
    let pendingBytes = 0
    let number = 0
    for await (const chunk of this.#decoded()) {
      let start = 0
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, newline)
        const line = pendingBytes ? Buffer.concat([...pending, part], pendingBytes + part.length) : part
        pending = []
        pendingBytes = 0
        yield { text: line.toString('utf8'), number: ++number, complete: true }
        start = newline + 1
      }
      if (start < chunk.length) {
        pending.push(Buffer.from(chunk.subarray(start)))
        pendingBytes += chunk.length - start
      }
    }
    if (pendingBytes > 0) yield { text: Buffer.concat(pending).toString('utf8'), number: ++number, complete: false }
  }

  /**
   * The file's bytes, decompressed when they start with a gzip or zstd magic number. The magic is
   * read off the first chunk, so that a pipe (`-`, standard input, or a named pipe) reads as a file does.
   */
  async * #decoded() {
    const stream = this.path === '-' ? process.stdin : createReadStream(this.path, { highWaterMark: CHUNK })
    const chunks = stream[Symbol.asyncIterator]()
    const first = await chunks.next()
    const head = first.done ? Buffer.alloc(0) : first.value
    const bytesRead = head.length
    const source = (async function * () {
      if (first.done) return
      yield first.value
      for (let chunk = await chunks.next(); !chunk.done; chunk = await chunks.next()) yield chunk.value
    })()
    // The file's chunks as the consumer asks for them (a 'data' listener would read ahead of it).
    let read = 0
    const counted = async function * (chunks, onBytes) {
      for await (const chunk of chunks) {
        onBytes((read += chunk.length))
        yield chunk
      }
    }
    try {
      if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
        const gunzip = zlib.createGunzip()
        const compressed = Readable.from(counted(source, this.onBytes))
        compressed.on('error', (error) => gunzip.destroy(error))
        try {
          for await (const chunk of compressed.pipe(gunzip)) yield chunk
        } catch (error) {
          if (error.code !== 'Z_BUF_ERROR') throw new Error(`not a valid gzip stream: ${error.message}`, { cause: error })
          this.cutShort = 'its gzip stream ends early'
        }
      } else if (bytesRead >= 4 && head.readUInt32LE(0) === ZSTD_MAGIC) {
        // Node's streaming zstd decoder stops after a file's first frame; the harness writes one a batch.
        const frames = new ZstdFrames()
        for await (const chunk of counted(source, this.onBytes)) {
          for (const frame of frames.push(chunk)) {
            yield decodeFrame(frame)
            // A turn of the event loop a frame, so that what the decoded frames leave is freed as the log is read.
            await setImmediate()
          }
        }
        const torn = frames.rest()
        if (torn.length > 0) {
          this.cutShort = 'its last zstd frame is cut short'
          yield decodeTorn(torn)
        }
      } else {
        yield * counted(source, this.onBytes)
      }
    } finally {
      // Closes the file when the reader stops early too (standard input stays open).
      if (stream !== process.stdin) stream.destroy()
    }
  }
}

function decodeFrame(frame) {
  try {
    return zlib.zstdDecompressSync(frame)
  } catch (error) {
    throw new Error(`not a valid zstd stream: ${error.message}`, { cause: error })
  }
}

/** What a torn zstd frame still decodes to (flushed as far as its complete blocks go), as the harness reads it. */
function decodeTorn(frame) {
  try {
    return zlib.zstdDecompressSync(frame, { finishFlush: zlib.constants.ZSTD_e_flush })
  } catch {
    return Buffer.alloc(0)
  }
}

/**
 * Splits a zstd stream into its frames as its bytes arrive (RFC 8878: a header, blocks whose
 * headers give their sizes, an optional checksum), reading each structure once: a large frame is
 * joined once, when complete.
 */
class ZstdFrames {
  #parts = []
  #length = 0
  // Where the next structure of the current frame starts: its header (-1) or a block header.
  #at = -1
  #checksum = false
  #ended = false

  /** The bytes of a frame left incomplete. */
  rest() {
    return this.#take(this.#length)
  }

  /** The frames `chunk` completes. */
  * push(chunk) {
    this.#parts.push(chunk)
    this.#length += chunk.length
    for (;;) {
      if (this.#at === -1) {
        if (this.#length < 5) return
        const head = this.#bytes(0, 5)
        if (head.readUInt32LE(0) !== ZSTD_MAGIC) throw new Error('not a valid zstd stream: a frame does not start with the zstd magic number')
        const descriptor = head[4]
        const singleSegment = (descriptor & 0x20) !== 0
        const sizeFlag = descriptor >>> 6
        this.#checksum = (descriptor & 4) !== 0
        this.#at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3] + (sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag)
        this.#ended = false
      }
      while (!this.#ended) {
        if (this.#length < this.#at + 3) return
        const block = this.#bytes(this.#at, 3).readUIntLE(0, 3)
        this.#at += 3 + (((block >>> 1) & 3) === 1 ? 1 : block >>> 3)
        this.#ended = (block & 1) === 1
      }
      const end = this.#at + (this.#checksum ? 4 : 0)
      if (this.#length < end) return
      yield this.#take(end)
      this.#at = -1
    }
  }

  #bytes(at, n) {
    const out = Buffer.alloc(n)
    let skipped = 0
    let copied = 0
    for (const part of this.#parts) {
      if (skipped + part.length > at + copied) {
        copied += part.copy(out, copied, at + copied - skipped, Math.min(part.length, at + n - skipped))
        if (copied === n) break
      }
      skipped += part.length
    }
    return out
  }

  #take(n) {
    const all = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts, this.#length)
    this.#parts = n < all.length ? [all.subarray(n)] : []
    this.#length = all.length - n
    return all.subarray(0, n)
  }
}
