import { Controller, Get, Inject } from '@nestjs/common';
import { BUILD_INFO, BuildInfo, CERTLANE_CONFIG, CertlaneConfig, PublicRoute } from '@certlane/platform';

export interface VersionResponse {
  version: string;
  commit: string;
  modified: string;
  build_time: string;
  /** Kept under the spec's name; reports the Node.js runtime, e.g. "node20.20.2". */
  go_version: string;
}

@PublicRoute()
@Controller('api/v1')
export class SystemController {
  constructor(
    @Inject(BUILD_INFO) private readonly build: BuildInfo,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  @Get('version')
  version(): VersionResponse {
    return {
      version: this.build.version,
      commit: this.build.commit,
      modified: this.build.modified,
      build_time: this.build.build_time,
      go_version: `node${process.versions.node}`,
    };
  }

  @Get('auth/info')
  authInfo(): { auth_type: string; required: boolean } {
    return { auth_type: this.config.auth.type, required: this.config.auth.type !== 'none' };
  }
}
