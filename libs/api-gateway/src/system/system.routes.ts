import { AuthInfo, VersionResponse } from '@certlane/contracts';
import { declareAnsweredRoute } from '../routes/route-declaration';

/** The build that answers and how callers authenticate: public, answered by the gateway itself. */
export const SYSTEM_ROUTES = [
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/version',
    public: true,
    status: 200,
    errors: [],
    response: 'VersionResponse',
    audit: null,
    answer: (_input, { build }): VersionResponse => ({
      version: build.version,
      commit: build.commit,
      modified: build.modified,
      build_time: build.build_time,
      go_version: `node${process.versions.node}`,
    }),
  }),
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/auth/info',
    public: true,
    status: 200,
    errors: [],
    response: 'AuthInfo',
    audit: null,
    answer: (_input, { config }): AuthInfo => ({
      auth_type: config.auth.type,
      required: config.auth.type !== 'none',
    }),
  }),
];
