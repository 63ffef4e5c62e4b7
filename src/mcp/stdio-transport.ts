import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP server's stdio transport: one JSON-RPC message a line on stdin, answers a line each on
 * stdout. Written here instead of the SDK's because that one, given a line over its 10 MiB buffer,
 * closed itself, and the process ended with exit code 0 and no word; and a line that was not JSON
 * got no answer at all. Here a line past the limit is dropped as it arrives (never held whole),
 * answered with a JSON-RPC error once its end comes, and reading goes on; a line that is not JSON
 * gets a parse error, one that is not a JSON-RPC message an invalid-request error.
 */

/** The longest line taken (the SDK's own buffer limit). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

export class LineStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  /** The pieces of the line being read, and their bytes. */
  private pieces: Buffer[] = [];
  private bytes = 0;
  /** Bytes of a line past the limit seen so far (0: none being dropped). */
  private dropping = 0;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    /** Where a dropped or unreadable line is reported (stderr: stdout is the protocol's). */
    private readonly log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const end = data.indexOf(NEWLINE);
      if (end < 0) {
        this.take(data);
        return;
      }
      this.take(data.subarray(0, end));
      this.lineDone();
      data = data.subarray(end + 1);
    }
  };

  /** Keeps a piece of the current line, or counts it when the line is past the limit. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropping > 0 || this.bytes + piece.length > this.maxLineBytes) {
      this.dropping += this.bytes + piece.length;
      this.pieces = [];
      this.bytes = 0;
      return;
    }
    this.pieces.push(piece);
    this.bytes += piece.length;
  }

  private lineDone(): void {
    if (this.dropping > 0) {
      const message = `Request too large: a message line of ${this.dropping} bytes was dropped (at most ${this.maxLineBytes} bytes a line)`;
      this.dropping = 0;
      this.log(`storage-inspector: ${message}`);
      this.answerError(null, ErrorCode.InvalidRequest, message);
      return;
    }
    const line = Buffer.concat(this.pieces, this.bytes).toString('utf8').replace(/\r$/, '');
    this.pieces = [];
    this.bytes = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.log('storage-inspector: a message line that is not JSON was answered with a parse error');
      this.answerError(null, ErrorCode.ParseError, 'Parse error: the line is not JSON');
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const id = (parsed as { id?: unknown } | null)?.id;
      this.answerError(typeof id === 'string' || typeof id === 'number' ? id : null, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    this.onmessage?.(message.data);
  }

  private answerError(id: string | number | null, code: number, message: string): void {
    // The schema of JSONRPCMessage wants an id; JSON-RPC answers a request it could not read with null.
    void this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(message));
  }

  private write(json: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${json}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pieces = [];
    this.bytes = 0;
    this.onclose?.();
  }
}
