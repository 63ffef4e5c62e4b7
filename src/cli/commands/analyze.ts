import { type Command, Option } from 'commander';
import { analysis, storageInfo, typeList } from '../../http/api-v1/reports.js';
import { StorageRegistry } from '../../http/storage-registry.js';
import { graphProgressReporter, openProgressReporter } from '../graph-progress.js';
import type { CommandIo } from '../io.js';
import { integerOption, parseCommand, toolCommand } from '../option-values.js';
import { openStorage, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions, type StorageSpec } from '../storage-argument.js';
import { formatAnalysis } from '../analysis-report.js';

const DESCRIPTION =
  'Builds the graph index of a storage and reports what takes the space: instances and bytes per type, unreachable objects (garbage) by type, ids referenced but missing, and superseded and garbage bytes per data file. Reads only.';

export interface AnalyzeArgs extends StorageSpec {
  readonly json: boolean;
  readonly examples: number;
  readonly top: number;
}

export function analyzeCommand(): Command {
  return withStorageOptions(toolCommand('analyze').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT), true)
    .addOption(new Option('--json', 'print the analysis as JSON (the shapes of /api/v1/storage, /types and /analysis)'))
    .addOption(integerOption('--examples', 'n', 'missing ids to list with who refers to them', 0, 1000, 'examples').default(20))
    .addOption(integerOption('--top', 'n', 'types to list per table', 1, 100_000, 'types').default(25));
}

export function parseAnalyzeArgs(args: string[]): AnalyzeArgs | 'help' {
  const command = analyzeCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const spec = storageSpecOf(command);
  const values = command.opts<{ json?: boolean; examples: number; top: number }>();
  return { ...spec, json: values.json === true, examples: values.examples, top: values.top };
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseAnalyzeArgs(args);
  if (options === 'help') {
    io.stdout.write(analyzeCommand().helpInformation());
    return;
  }
  const storage = await openStorage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  const registry = new StorageRegistry();
  try {
    for (const warning of storage.warnings) io.stderr.write(`storage-inspector: warning: ${warning}\n`);
    const context = registry.add('default', storage, graphProgressReporter(io));
    const graph = await context.graph.ready();
    const report = {
      storage: await storageInfo(context),
      types: typeList(context, graph).filter((t) => t.instances > 0),
      analysis: await analysis(context, graph, options.examples, 5),
    };
    io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatAnalysis(report, options.top));
  } finally {
    await registry.close();
    await storage.close();
  }
}
