/** What every provider factory is built from: the settings and a logger (a file of its own: no import circle). */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

export interface ProviderContext { config: Config; log: Logger }
