import { javaDirectoryText } from '../storage/source/directory-source.js';
import type { StorageChannel } from '../storage/storage.js';
import { gsonString } from './gson-json.js';
import { jacksonString } from './jackson-json.js';

/**
 * `maintenance/filesStatistics` (rest-rendering.md §9): per file, channel and storage the live
 * and total bytes, as Java's `StorageRawFileStatistics` prints through Gson. Live bytes are the
 * latest records; 4.1 has no storage garbage collection, so unreachable objects count as live.
 */

export interface StatisticsSource {
  /** The storage directory exactly as the user gave it; file paths are printed below it. */
  readonly directory: string;
  readonly channels: readonly StorageChannel[];
  /** How Java prints a data file's path where the storage is not a directory (a SQL file system). */
  javaFilePath?(channelDirectoryName: string, fileName: string): string;
}

export function filesStatisticsJson(source: StatisticsSource, now: Date = new Date()): string {
  const base = javaDirectoryText(source.directory);
  let fileCount = 0;
  let live = 0;
  let total = 0;
  const channelParts: string[] = [];
  for (const channel of source.channels) {
    let channelLive = 0;
    let channelTotal = 0;
    const files = channel.files.map((f) => {
      channelLive += f.liveLength;
      channelTotal += f.totalLength;
      const path = source.javaFilePath?.(channel.directoryName, f.name) ?? `${base}/${channel.directoryName}/${f.name}`;
      return (
        `{"fileNumber":"${f.fileNumber}","file":${gsonString(path)},"fileCount":"1",` +
        `"liveDataLength":"${f.liveLength}","totalDataLength":"${f.totalLength}"}`
      );
    });
    fileCount += channel.files.length;
    live += channelLive;
    total += channelTotal;
    channelParts.push(
      `"${channel.index}":{"channelIndex":${channel.index},"files":[${files.join(',')}],` +
        `"fileCount":"${channel.files.length}","liveDataLength":"${channelLive}","totalDataLength":"${channelTotal}"}`,
    );
  }
  return (
    `{"creationTime":"${javaInstantText(now)}","channelStatistics":{${channelParts.join(',')}},` +
    `"fileCount":"${fileCount}","liveDataLength":"${live}","totalDataLength":"${total}"}`
  );
}

/**
 * `Instant.toString()` of a millisecond date: no fraction when the milliseconds are 0, else three
 * digits; years beyond 9999 get a `+`.
 */
export function javaInstantText(date: Date): string {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ, or ±YYYYYY-... outside 0..9999
  let text = iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  const year = date.getUTCFullYear();
  if (year > 9999) text = `+${String(year)}${text.slice(text.indexOf('-', 1))}`;
  else if (year < 0) text = `-${String(-year).padStart(4, '0')}${text.slice(text.indexOf('-', 1))}`;
  return text;
}

/**
 * The same statistics as Micronaut's controller serializes them (`ViewerStorageFileStatistics`
 * through Micronaut serialization): numbers as numbers, each object's inherited counters first,
 * `creationTime` as `yyyy-MM-dd'T'HH:mm:ss'Z'` in UTC (its mixin's format: no milliseconds).
 */
export function micronautFilesStatisticsJson(source: StatisticsSource, now: Date = new Date()): string {
  const base = javaDirectoryText(source.directory);
  const counters = (files: number, live: number, total: number): string => `"fileCount":${files},"liveDataLength":${live},"totalDataLength":${total}`;
  let fileCount = 0;
  let live = 0;
  let total = 0;
  const channelParts: string[] = [];
  for (const channel of source.channels) {
    let channelLive = 0;
    let channelTotal = 0;
    const files = channel.files.map((f) => {
      channelLive += f.liveLength;
      channelTotal += f.totalLength;
      const path = source.javaFilePath?.(channel.directoryName, f.name) ?? `${base}/${channel.directoryName}/${f.name}`;
      return `{${counters(1, f.liveLength, f.totalLength)},"fileNumber":${f.fileNumber},"file":${jacksonString(path)}}`;
    });
    fileCount += channel.files.length;
    live += channelLive;
    total += channelTotal;
    channelParts.push(`"${channel.index}":{${counters(channel.files.length, channelLive, channelTotal)},"channelIndex":${channel.index},"files":[${files.join(',')}]}`);
  }
  const creationTime = `${now.toISOString().slice(0, 19)}Z`;
  return `{${counters(fileCount, live, total)},"creationTime":"${creationTime}","channelStatistics":{${channelParts.join(',')}}}`;
}
