import 'reflect-metadata';
import { RevocationModule } from '@certlane/revocation';
import { runService } from '@certlane/platform';

void runService('revocation', [RevocationModule.forRoot()]);
