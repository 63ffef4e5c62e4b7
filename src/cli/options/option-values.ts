import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { groupDigits } from '../reports/number-text.js';

/**
 * What every command shares on top of commander: typed integer options that name their range,
 * options that can also come from `STORAGE_INSPECTOR_*` environment variables (a flag wins), and
 * parsing without exiting the process (errors become UsageError, exit code 2 in run-cli.ts).
 */

/** Prefix of the environment variables that stand in for options (`--poll-interval` → `..._POLL_INTERVAL`). */
export const ENV_PREFIX = 'STORAGE_INSPECTOR_';

/** The environment variable that can give an option's value. */
export function envName(flag: string): string {
  return ENV_PREFIX + flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase();
}

/** A command of `storage-inspector` (so that its help says `Usage: storage-inspector <name> ...`). */
export function toolCommand(name: string): Command {
  // The same help line in every command, whether its help is printed by parseCommand or directly.
  return new Command('storage-inspector').command(name).helpOption('-h, --help', HELP_TEXT);
}

const HELP_TEXT = 'print this help';

/**
 * An integer option in `[min, max]`, its range in its help; out-of-range or malformed values are
 * refused naming the range. An option in `bytes` is a size: plain bytes or a number with a unit
 * (`512MB`, `1GiB`; see parseSize).
 */
export function integerOption(flag: string, valueName: string, description: string, min: number, max: number, unit: string): Option {
  const parse = unit === 'bytes' ? (text: string) => parseSizeOption(text, min, max) : (text: string) => parseInteger(text, min, max, unit);
  return new Option(`${flag} <${unit === 'bytes' ? 'size' : valueName}>`, `${description} ${rangeText(min, max, unit)}`).argParser(parse);
}

/** `(10 to 3,600,000 milliseconds)`; a unit that names one thing (`a TCP port`) is left out; sizes say how they are written. */
export function rangeText(min: number, max: number, unit: string): string {
  if (unit === 'bytes') return `(${sizeText(min)} to ${sizeText(max)}; bytes, or with a unit: 512MB, 1GiB)`;
  return `(${groupDigits(min)} to ${groupDigits(max)}${/^an? /.test(unit) ? '' : ` ${unit}`})`;
}

/** Units of sizes: decimal (kB = 1000) and binary (KiB = 1024), as DuckDB and most tools read them. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * A size in bytes: plain bytes (`1048576`) or a number with a unit, with or without a space, in
 * any case (`512MB`, `1.5 GiB`, `64kib`); undefined for anything else, a fraction of a byte or a
 * size beyond 2^53.
 */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = match[2]!.toLowerCase();
  const factor = unit === '' ? 1 : SIZE_UNITS[unit];
  if (factor === undefined) return undefined;
  const value = Number(match[1]) * factor;
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A size for people: `16 MiB` when it is a whole number of a binary unit, else grouped bytes. */
export function sizeText(bytes: number): string {
  for (const [unit, factor] of [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${groupDigits(bytes / factor)} ${unit}`;
  }
  return `${groupDigits(bytes)} bytes`;
}

function parseSizeOption(text: string, min: number, max: number): number {
  const value = parseSize(text);
  if (value === undefined || value < min || value > max) {
    throw new InvalidArgumentError(`a size from ${sizeText(min)} to ${sizeText(max)} is expected: bytes, or a number with a unit (kB, MB, GB, TB, KiB, MiB, GiB, TiB)`);
  }
  return value;
}

export function parseInteger(text: string, min: number, max: number, unit: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(`an integer from ${min} to ${max} (${unit}) is expected`);
  }
  return value;
}

/**
 * Marks an option as also settable by its environment variable (shown in --help). Flags (no
 * value) take `true`/`false` (also 1/0, yes/no) there, not "any value means on" as commander would.
 */
export function fromEnv(option: Option): Option {
  const long = option.long;
  if (long === undefined) return option;
  if (option.required || option.optional) return option.env(envName(long));
  const name = envName(long.replace(/^--no-/, '--'));
  option.description = `${option.description} (env: ${name}=true|false)`;
  BOOLEAN_ENV.set(option, name);
  return option;
}

const BOOLEAN_ENV = new WeakMap<Option, string>();
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** Applies the environment to the flags the command line left alone. */
function applyBooleanEnv(command: Command, env: NodeJS.ProcessEnv): void {
  for (const option of command.options) {
    const name = BOOLEAN_ENV.get(option);
    const text = name === undefined ? undefined : env[name];
    if (name === undefined || text === undefined) continue;
    const key = option.attributeName();
    const source = command.getOptionValueSource(key);
    if (source !== undefined && source !== 'default') continue;
    const word = text.trim().toLowerCase();
    if (!TRUE_WORDS.has(word) && !FALSE_WORDS.has(word)) {
      throw new UsageError(`invalid ${name} "${text}": true or false`);
    }
    // A --no-x flag stores `x`; the variable says whether the positive form is on.
    command.setOptionValueWithSource(key, TRUE_WORDS.has(word), 'env');
  }
}

/**
 * Parses `args` with a command definition without side effects: no process exit, no output.
 * Returns 'help' when help was asked for (the caller prints `command.helpInformation()`).
 */
export function parseCommand(command: Command, args: readonly string[]): 'help' | 'parsed' {
  command
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined })
    .helpOption('-h, --help', HELP_TEXT);
  // Help wins over every other problem of the line (as in most tools).
  if (args.includes('-h') || args.includes('--help')) return 'help';
  try {
    command.parse([...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') return 'help';
      throw new UsageError(`${usageText(error.message)}; see 'storage-inspector ${command.name()} --help'`);
    }
    throw error;
  }
  applyBooleanEnv(command, process.env);
  return 'parsed';
}

/** Commander's messages in this tool's form: `invalid --port "x" (...)`, naming the variable for env values. */
function usageText(message: string): string {
  // commander's suggestion comes on a line of its own: `(Did you mean --port?)`.
  const text = message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\(Did you mean (.*)\?\)\s*$/s, ' (did you mean $1?)');
  const invalid = /^option '(--[\w-]+)[^']*' (?:argument '(.*)'|value '(.*)' from env '(\w+)') is invalid\. (.*)$/s.exec(text);
  if (invalid === null) return text.replace(/\.$/, '');
  const [, flag, argument, envValue, env, whyText] = invalid;
  // `Allowed choices are a, b, c.`: the sentence's full stop would come before our `; see ...`.
  const why = whyText!.replace(/\.$/, '').replace(/^Allowed choices are (.*)$/, 'one of $1 is expected');
  return env === undefined ? `invalid ${flag} "${argument}": ${why}` : `invalid ${env} "${envValue}" (for ${flag}): ${why}`;
}
