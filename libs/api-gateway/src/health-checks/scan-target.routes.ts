import {
  CreateScanTargetRequest,
  ListNetworkScansRequest,
  ListScanTargetsRequest,
  ScanTargetChanges,
} from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const TARGETS = '/api/v1/network-scan/targets';
const SCANS = '/api/v1/network-scan/scans';

/**
 * Network scan targets and scans (spec 2.14, 4.12; ADR 0057): served by health-monitor. Like the
 * SCEP probe, scanning is probing endpoints, so the routes take the health_check permissions.
 */
export const SCAN_TARGET_ROUTES = [
  declareRoute({
    method: 'GET',
    path: TARGETS,
    permission: 'health_check.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'health-monitor.v1.list-scan-targets',
    query: ListScanTargetsRequest,
    response: 'Page<ScanTargetDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: TARGETS,
    permission: 'health_check.edit',
    status: 201,
    errors: [400, 401, 403, 413],
    subject: 'health-monitor.v1.create-scan-target',
    body: CreateScanTargetRequest,
    response: 'ScanTargetDto',
    audit: 'scan_target.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${TARGETS}/:id`,
    permission: 'health_check.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'health-monitor.v1.get-scan-target',
    response: 'ScanTargetDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${TARGETS}/:id`,
    permission: 'health_check.edit',
    status: 200,
    errors: [400, 401, 403, 404, 413],
    subject: 'health-monitor.v1.update-scan-target',
    body: ScanTargetChanges,
    response: 'ScanTargetDto',
    audit: 'scan_target.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${TARGETS}/:id`,
    permission: 'health_check.edit',
    status: 204,
    errors: [401, 403, 404],
    subject: 'health-monitor.v1.delete-scan-target',
    response: null,
    audit: 'scan_target.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${TARGETS}/:id/trigger`,
    permission: 'health_check.edit',
    status: 202,
    errors: [400, 401, 403, 404],
    subject: 'health-monitor.v1.trigger-scan-target',
    response: 'NetworkScanDto',
    audit: 'network_scan.started',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'GET',
    path: SCANS,
    permission: 'health_check.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'health-monitor.v1.list-network-scans',
    query: ListNetworkScansRequest,
    response: 'Page<NetworkScanDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'GET',
    path: `${SCANS}/:id`,
    permission: 'health_check.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'health-monitor.v1.get-network-scan',
    response: 'NetworkScanDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
];
