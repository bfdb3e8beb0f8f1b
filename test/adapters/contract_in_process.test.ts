import t from 'tap';
import { createSimAdapters } from '../../src/adapters/index.js';
import { adapterContract } from './helpers/contract.js';

const set = createSimAdapters({ speech: 'tones' }); // the tone-code simulators' contract
adapterContract(t, 'in-process', () => set);
