import { EventContract, RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  CreateHealthCheckRequest,
  HealthCheckDeleted,
  HealthCheckDto,
  HealthCheckIdRequest,
  HealthCheckResultDto,
  HealthCheckStatusChanged,
  HealthCheckSummary,
  HealthCheckSummaryRequest,
  ListHealthCheckHistoryRequest,
  ListHealthChecksRequest,
  UpdateHealthCheckRequest,
} from './health-check.dto';

/** Endpoint health checks: served by health-monitor (ADR 0057). */
export const healthCheckRequestContracts = {
  'health-monitor.v1.list-health-checks': {
    request: ListHealthChecksRequest,
    response: shape<Page<HealthCheckDto>>(),
  },
  'health-monitor.v1.get-health-check-summary': {
    request: HealthCheckSummaryRequest,
    response: shape<HealthCheckSummary>(),
  },
  'health-monitor.v1.get-health-check': { request: HealthCheckIdRequest, response: shape<HealthCheckDto>() },
  'health-monitor.v1.create-health-check': {
    request: CreateHealthCheckRequest,
    response: shape<HealthCheckDto>(),
  },
  'health-monitor.v1.update-health-check': {
    request: UpdateHealthCheckRequest,
    response: shape<HealthCheckDto>(),
  },
  'health-monitor.v1.delete-health-check': {
    request: HealthCheckIdRequest,
    response: shape<HealthCheckDeleted>(),
  },
  'health-monitor.v1.list-health-check-history': {
    request: ListHealthCheckHistoryRequest,
    response: shape<Page<HealthCheckResultDto>>(),
  },
  'health-monitor.v1.acknowledge-health-check': {
    request: HealthCheckIdRequest,
    response: shape<HealthCheckDto>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;

export const healthCheckEventContracts = {
  'health-monitor.v1.health-check.created': { payload: shape<HealthCheckDto>() },
  'health-monitor.v1.health-check.updated': { payload: shape<HealthCheckDto>() },
  'health-monitor.v1.health-check.deleted': { payload: shape<HealthCheckDeleted>() },
  'health-monitor.v1.health-check.status-changed': { payload: shape<HealthCheckStatusChanged>() },
} satisfies Record<string, EventContract<unknown>>;
