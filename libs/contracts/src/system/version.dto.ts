/** GET /api/v1/version (no credentials needed): the build that answers. */
export interface VersionResponse {
  version: string;
  commit: string;
  modified: string;
  build_time: string;
  /** Kept under the spec's name; reports the Node.js runtime, e.g. "node20.20.2". */
  go_version: string;
}
