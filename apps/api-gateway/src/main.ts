import 'reflect-metadata';
import { ApiGatewayModule } from '@certlane/api-gateway';
import { runService } from '@certlane/platform';

// Its own process: the gateway also answers the relying-party paths of the one public origin.
void runService('api-gateway', [
  ApiGatewayModule.forRoot({ forwardRelyingPartyPaths: true, forwardAcmePaths: true }),
]);
