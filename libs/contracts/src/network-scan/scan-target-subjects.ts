import { RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  CreateScanTargetRequest,
  ListNetworkScansRequest,
  ListScanTargetsRequest,
  NetworkScanDto,
  NetworkScanIdRequest,
  ScanTargetDeleted,
  ScanTargetDto,
  ScanTargetIdRequest,
  UpdateScanTargetRequest,
} from './scan-target.dto';

/** Network scan targets and scans (spec 2.14, 4.12): served by health-monitor (ADR 0057). */
export const scanTargetRequestContracts = {
  'health-monitor.v1.list-scan-targets': {
    request: ListScanTargetsRequest,
    response: shape<Page<ScanTargetDto>>(),
  },
  'health-monitor.v1.get-scan-target': { request: ScanTargetIdRequest, response: shape<ScanTargetDto>() },
  'health-monitor.v1.create-scan-target': {
    request: CreateScanTargetRequest,
    response: shape<ScanTargetDto>(),
  },
  'health-monitor.v1.update-scan-target': {
    request: UpdateScanTargetRequest,
    response: shape<ScanTargetDto>(),
  },
  'health-monitor.v1.delete-scan-target': {
    request: ScanTargetIdRequest,
    response: shape<ScanTargetDeleted>(),
  },
  'health-monitor.v1.trigger-scan-target': {
    request: ScanTargetIdRequest,
    response: shape<NetworkScanDto>(),
  },
  'health-monitor.v1.list-network-scans': {
    request: ListNetworkScansRequest,
    response: shape<Page<NetworkScanDto>>(),
  },
  'health-monitor.v1.get-network-scan': { request: NetworkScanIdRequest, response: shape<NetworkScanDto>() },
} satisfies Record<string, RequestContract<object, unknown>>;
