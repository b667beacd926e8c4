export * from './agents/agent-status';
export * from './agents/agent-retirement';
export * from './targets/command';
export * from './targets/target-config';
export * from './deployments/agentless';
