import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { get, Agent } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real MicroStream 4.1 and EclipseStore 4.1 (and 4.2), started on a storage the way an application
 * starts them (the whole graph reachable from the root is loaded), serving their own REST adapter.
 * They come as commands, `ms41 serve DIR PORT`, `es41 serve DIR PORT` and `es42 serve DIR PORT`, in the directory
 * that STORAGE_INSPECTOR_JAVA_REFERENCE names (they print the exception and exit 1 when the library
 * refuses to start); `java` must be on the PATH. Each start works on a copy: the library writes
 * into what it opens.
 */

export const JAVA_REFERENCE_VARIABLE = 'STORAGE_INSPECTOR_JAVA_REFERENCE';

export type JavaLibrary = 'ms41' | 'es41' | 'es42';

/**
 * Why the Java tests cannot run here, or undefined when they can. `es42` (EclipseStore 4.2, chunk
 * checksums) is looked for only by the tests that name it.
 */
/** What `java -version` says (the JVM build an archive of classes fits, see classArchive). */
let javaVersion: string | undefined;

export function javaMissing(libraries: readonly JavaLibrary[] = ['ms41', 'es41']): string | undefined {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error !== undefined) return 'java is not on the PATH';
  javaVersion = java.stderr;
  const dir = process.env[JAVA_REFERENCE_VARIABLE];
  if (dir === undefined || dir === '') return `${JAVA_REFERENCE_VARIABLE} does not name the directory of the ms41 and es41 commands`;
  for (const command of libraries) if (!existsSync(join(dir, command))) return `${JAVA_REFERENCE_VARIABLE}=${dir} holds no ${command}`;
  return undefined;
}

export interface JavaAnswer {
  readonly status: number;
  readonly body: Buffer;
}

export interface RunningJava {
  readonly port: number;
  get(path: string): Promise<JavaAnswer>;
  stop(): Promise<void>;
}

/** What the library said when it refused to start (its exception and causes). */
export class JavaRefused extends Error {}

/**
 * A test's JVM lives for seconds: the quick compiler alone and the serial collector start it with
 * about a third less CPU and in about half the time (measured on es42's refusal of a damaged
 * storage). The JVM's flags only: the library, its setting and the storage it opens are the same.
 * The JVM says "Picked up JAVA_TOOL_OPTIONS" on stderr, which no test reads as an exception.
 */
const SHORT_LIVED_JVM = [process.env['JAVA_TOOL_OPTIONS'] ?? '', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'].join(' ').trim();

/**
 * Class data sharing: the classes a library's JVM loads (the library's jars and the JDK's), parsed
 * once and kept in an archive that the next JVMs map instead of loading them again. It halves the
 * CPU of a start (0.65 -> 0.31 s to "listening" on the graph corpus with ms41) and changes nothing
 * else: the same class files, the same code. The first start of a library without an archive writes
 * one when it is stopped (under a name of its own, renamed when the JVM ended by itself, so a JVM
 * never maps a half-written archive); the JVM checks an archive against its class path and the
 * jars' sizes and times and starts without it when it does not fit (its warning silenced). The
 * archives are a cache in the temporary directory, one per library, class path and flags.
 */
function classArchive(library: JavaLibrary, env: Readonly<Record<string, string>>): string | undefined {
  const dir = process.env[JAVA_REFERENCE_VARIABLE]!;
  // An archive fits one JVM build only: another java gets an archive of its own.
  javaVersion ??= spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr ?? '';
  const jars = readdirSync(dir)
    .filter((name) => name.endsWith('.jar'))
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      return [name, stat.size, stat.mtimeMs];
    });
  const classes = env['APP_CLASSES'] ?? process.env['APP_CLASSES'] ?? '';
  const key = createHash('sha256').update(JSON.stringify([library, dir, jars, classes, SHORT_LIVED_JVM, javaVersion])).digest('hex').slice(0, 20);
  const archive = join(tmpdir(), 'storage-inspector-jvm-classes', `${library}-${key}.jsa`);
  // JAVA_TOOL_OPTIONS is split at white space.
  return /\s/.test(archive) ? undefined : archive;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the library on a copy of `dir`; rejects with JavaRefused when it does not start. `env`
 * adds variables (es42: `ES_CHUNK_CHECKSUM=none` starts it without a checksum setting).
 */
export async function startJava(library: JavaLibrary, dir: string, env: Readonly<Record<string, string>> = {}): Promise<RunningJava> {
  const copy = mkdtempSync(join(tmpdir(), 'si-java-copy-'));
  cpSync(dir, copy, { recursive: true });
  const port = await freePort();
  const archive = classArchive(library, env);
  let writing: string | undefined;
  let sharing = '';
  if (archive !== undefined && existsSync(archive)) sharing = `-XX:SharedArchiveFile=${archive}`;
  else if (archive !== undefined) {
    mkdirSync(join(archive, '..'), { recursive: true });
    writing = `${archive}.${randomUUID()}.tmp`;
    sharing = `-XX:ArchiveClassesAtExit=${writing}`;
  }
  const options = archive === undefined ? SHORT_LIVED_JVM : `${SHORT_LIVED_JVM} ${sharing} -Xlog:cds=off,cds+dynamic=off`;
  const child = spawn(join(process.env[JAVA_REFERENCE_VARIABLE]!, library), ['serve', copy, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, JAVA_TOOL_OPTIONS: options, ...env },
  });
  let output = '';
  // 'close', not 'exit': the output is complete only once the pipes are closed ('exit' can come
  // before the last output of a JVM that ends by itself).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const cleanUp = (): void => {
    rmSync(copy, { recursive: true, force: true });
    if (writing !== undefined) rmSync(writing, { force: true });
  };
  const timers: NodeJS.Timeout[] = [];
  const started = await Promise.race([
    new Promise<boolean>((resolve) => {
      // A refusal: the library's exception left `main`, and the library's threads keep the JVM
      // alive. The exception's trace is complete once the main thread has ended, which the JVM
      // tells: on SIGQUIT it lists its threads on stdout (kept out of the output), "main" while it
      // is still printing the trace, "DestroyJavaVM" once it has ended. Asked again until then; at
      // the latest 5 s after the exception began, the output is taken as it is.
      let refusing = false;
      let threads = '';
      const askThreads = (): void => {
        threads = '';
        child.kill('SIGQUIT');
      };
      child.stdout.on('data', (d: Buffer) => {
        if (!refusing) {
          output += d.toString();
          if (/listening on http/.test(output)) resolve(true);
          return;
        }
        threads += d.toString();
        if (!/^JNI global refs/m.test(threads)) return;
        if (/^"DestroyJavaVM"/m.test(threads) && !/^"main"/m.test(threads)) resolve(false);
        else timers.push(setTimeout(askThreads, 20));
      });
      child.stderr.on('data', (d: Buffer) => {
        output += d.toString();
        if (refusing || !/Exception in thread "main"/.test(output)) return;
        refusing = true;
        timers.push(setTimeout(() => resolve(false), 5000));
        askThreads();
      });
    }),
    exited.then(() => false as const),
  ]);
  for (const timer of timers) clearTimeout(timer);
  if (!started) {
    child.kill('SIGKILL');
    await exited;
    cleanUp();
    const lines = output.split('\n').filter((l) => /Exception|Caused by|Error/.test(l));
    throw new JavaRefused(lines.join('\n') || output);
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  return {
    port,
    get: (path) =>
      new Promise<JavaAnswer>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        }).on('error', reject);
      }),
    stop: async () => {
      agent.destroy();
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000))]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      } else if (writing !== undefined && existsSync(writing)) {
        try {
          renameSync(writing, archive!);
        } catch {
          // another JVM's archive is there already: either serves
        }
      }
      cleanUp();
    },
  };
}
