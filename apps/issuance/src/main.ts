import 'reflect-metadata';
import { IssuanceModule } from '@certlane/issuance';
import { runService } from '@certlane/platform';

void runService('issuance', [IssuanceModule.forRoot()]);
