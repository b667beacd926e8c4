import 'reflect-metadata';
import { AuthModule } from '@certlane/auth';
import { runService } from '@certlane/platform';

void runService('auth', [AuthModule.forRoot()]);
