import { Controller, Get, Header } from '@nestjs/common';
import { PublicRoute } from '@certlane/platform';
import { readApiDescription } from './api-description';
import { Documented } from '../operation-facts/operation-facts';

/** The API description itself (spec 9), public so that clients and tools can read it first. */
@PublicRoute()
@Controller('api/v1')
export class OpenApiController {
  private readonly json = readApiDescription('json');
  private readonly yaml = readApiDescription('yaml');

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Documented({
    operationId: 'getApiDescription',
    summary: 'The API description (OpenAPI 3.1.0)',
    status: 200,
    errors: [],
    response: null,
    produces: 'application/json',
  })
  document(): string {
    return this.json;
  }

  @Get('openapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Documented({
    operationId: 'getApiDescriptionYaml',
    summary: 'The API description (OpenAPI 3.1.0) as YAML',
    status: 200,
    errors: [],
    response: null,
    produces: 'application/yaml',
  })
  yamlDocument(): string {
    return this.yaml;
  }
}
