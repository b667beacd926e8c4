import 'reflect-metadata';
import { ProtocolFrontendsModule } from '@certlane/protocol-frontends';
import { runService } from '@certlane/platform';

void runService('protocol-frontends', [ProtocolFrontendsModule.forRoot()]);
