import type { Api } from '../model/api.js';
import type { ApiV1 } from '../model/api-v1.js';
import type { DictionaryHolder } from '../model/dictionary-holder.js';
import type { SqlApi } from '../grid/sql-api.js';
import type { TreeLoader } from '../tree/tree-loader.js';
import type { Route } from './router.js';

/**
 * What a view needs of the application: the APIs, the dictionary, the tree loader and
 * navigation. Views depend on this, the application implements it (so imports point one way:
 * app → views → view-host).
 */
export interface ViewHost {
  readonly api: Api;
  readonly v1: ApiV1;
  /** The server has storage-inspector's own API (`/api/v1`); the Java service has not. */
  readonly ownApi: boolean;
  /** `/api/v1/sql`, where the server runs SQL. */
  readonly sql: SqlApi;
  /** The server runs SQL (checked at start). */
  readonly sqlAvailable: boolean;
  readonly types: DictionaryHolder;
  readonly loader: TreeLoader;
  /** The storages served by name (`serve NAME=DIR ...`); none when one storage is served. */
  storageNames(): readonly string[];
  /** The instance (`microstream/NAME`) of a storage served by name, for links into it. */
  instanceOfStorage(name: string): string | undefined;
  /** The link of a route in the current storage. */
  href(route: Route): string;
  navigate(route: Route): void;
  /** Record the current state in the URL without a new history entry. */
  replaceRoute(route: Route): void;
}
