import 'reflect-metadata';
import { ApiGatewayModule } from '@certlane/api-gateway';
import { runService } from '@certlane/platform';

void runService('api-gateway', [ApiGatewayModule.forRoot()]);
