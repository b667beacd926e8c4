/** A configuration the service refuses to start with. Its message is the one line printed before exit. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** EX_CONFIG from sysexits.h: "configuration error". */
export const CONFIG_ERROR_EXIT_CODE = 78;
