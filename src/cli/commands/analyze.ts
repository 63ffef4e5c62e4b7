import { type Command, Option } from 'commander';
import type { GigaMapReport } from '../../gigamap/gigamap-report.js';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import type { Storage } from '../../storage/storage.js';
import { analysis, storageInfo, typeList } from '../../http/api-v1/analysis/reports.js';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { graphProgressReporter, openProgressReporter } from '../output/graph-progress.js';
import type { CommandIo } from '../io.js';
import { integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { openStorageWithDamage, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions, type StorageSpec } from '../options/storage-argument.js';
import { formatAnalysis } from '../reports/analysis-report.js';
import { formatGigaMaps } from '../reports/gigamap-report-text.js';
import { retainersReport } from '../../http/api-v1/analysis/retained-routes.js';
import { formatRetainers, RETAINER_TYPES } from '../reports/retainers-report.js';

const DESCRIPTION =
  'Builds the graph index of a storage and reports what takes the space: instances and bytes per type, unreachable objects (garbage) by type, the top retainers (the objects that keep the most bytes alive, each with its retained set by type), ids referenced but missing, superseded and garbage bytes per data file, and EclipseStore GigaMaps (size, segments, indices, bytes of the index bitmaps). Reads only.';

export interface AnalyzeArgs extends StorageSpec {
  readonly json: boolean;
  readonly examples: number;
  readonly top: number;
  /** Refuse a storage MicroStream would refuse instead of reading what can be read of it. */
  readonly strict?: true | undefined;
}

export function analyzeCommand(): Command {
  return withStorageOptions(toolCommand('analyze').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT), true)
    .addOption(new Option('--strict', 'refuse a storage MicroStream would refuse to start, instead of reading what can be read of it'))
    .addOption(new Option('--json', 'print the analysis as JSON (the shapes of /api/v1/storage, /types, /analysis and /retainers)'))
    .addOption(integerOption('--examples', 'n', 'missing ids to list with who refers to them', 0, 1000, 'examples').default(20))
    .addOption(integerOption('--top', 'n', 'rows to list per table (types, garbage by type, top retainers (at most 1000), data files: those with the most waste)', 1, 100_000, 'rows').default(25));
}

export function parseAnalyzeArgs(args: string[]): AnalyzeArgs | 'help' {
  const command = analyzeCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const spec = storageSpecOf(command);
  const values = command.opts<{ json?: boolean; examples: number; top: number; strict?: true }>();
  return { ...spec, json: values.json === true, examples: values.examples, top: values.top, strict: values.strict };
}

async function gigaMapsOf(storage: Storage, graph: GraphIndex): Promise<GigaMapReport[]> {
  const { gigaMapIds } = await import('../../gigamap/find-gigamaps.js');
  const ids = gigaMapIds(graph);
  if (ids.length === 0) return [];
  const { reportGigaMaps } = await import('../../gigamap/gigamap-report.js');
  return reportGigaMaps(storage, ids);
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseAnalyzeArgs(args);
  if (options === 'help') {
    io.stdout.write(analyzeCommand().helpInformation());
    return;
  }
  const { storage, damage } = await openStorageWithDamage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`), options.strict === true);
  const registry = new StorageRegistry();
  try {
    for (const warning of storage.warnings) io.stderr.write(`storage-inspector: warning: ${warning}\n`);
    const context = registry.add('default', storage, graphProgressReporter(io), damage.length === 0 ? undefined : { instance: storage.family.defaultInstance, damage });
    const graph = await context.graph.ready();
    const tree = await context.graph.dominators.ready();
    const report = {
      storage: await storageInfo(context),
      types: typeList(context, graph).filter((t) => t.instances > 0),
      analysis: await analysis(context, graph, options.examples, 5),
      retainers: await retainersReport(context, graph, tree, 0, options.top, RETAINER_TYPES, false),
      // Loaded only when the storage has GigaMaps (EclipseStore).
      gigamaps: await gigaMapsOf(storage, graph),
    };
    io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatAnalysis(report, options.top) + formatRetainers(report.retainers) + formatGigaMaps(report.gigamaps));
  } finally {
    await registry.close();
    await storage.close();
  }
}
