import 'reflect-metadata';
import { DeploymentDispatchModule } from '@certlane/deployment-dispatch';
import { runService } from '@certlane/platform';

void runService('deployment-dispatch', [DeploymentDispatchModule.forRoot()]);
