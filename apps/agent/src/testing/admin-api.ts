import type { JobDto } from '@certlane/contracts';
import { httpsRequest, HttpsResult, TestSystem } from '@certlane/testing';

export const json = <T>(response: HttpsResult) => response.json() as T;

export type Api = (method: string, path: string, body?: unknown) => Promise<HttpsResult>;

/** The gateway's API as the test system's admin (its bootstrap secret), with the job look-ups. */
export function adminApi(system: () => TestSystem) {
  const api: Api = (method, path, body) =>
    httpsRequest(`${system().services['api-gateway'].url}${path}`, {
      method,
      ca: system().ca,
      headers: {
        authorization: `Bearer ${system().env.SERVICE_AUTH_SECRET!}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const job = async (id: string) => json<JobDto>(await api('GET', `/api/v1/jobs/${id}`));
  const jobsOf = async (certificateId: string) =>
    json<{ data: JobDto[] }>(await api('GET', `/api/v1/jobs?certificate_id=${certificateId}&per_page=100`))
      .data;
  /** Registers target `id` at the server for the agent (deploy refuses targets it does not know). */
  const registerTarget = async (id: string, agentId: string) => {
    const created = await api('POST', '/api/v1/targets', {
      id,
      name: id,
      type: 'nginx',
      agent_id: agentId,
      config: { cert_path: `/srv/${id}/cert.pem`, key_path: `/srv/${id}/key.pem` },
    });
    if (created.status !== 201) throw new Error(`target ${id}: ${created.status} ${created.text}`);
  };
  return { api, job, jobsOf, registerTarget };
}
