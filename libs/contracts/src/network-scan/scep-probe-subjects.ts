import { RequestContract, shape } from '../messaging/contract';
import { ListScepProbesRequest, ScepProbeList, ScepProbeRequest, ScepProbeResultDto } from './scep-probe.dto';

/** The SCEP probe (spec 2.17, 4.9): served by health-monitor (ADR 0057). */
export const scepProbeRequestContracts = {
  'health-monitor.v1.run-scep-probe': { request: ScepProbeRequest, response: shape<ScepProbeResultDto>() },
  'health-monitor.v1.list-scep-probes': { request: ListScepProbesRequest, response: shape<ScepProbeList>() },
} satisfies Record<string, RequestContract<object, unknown>>;
