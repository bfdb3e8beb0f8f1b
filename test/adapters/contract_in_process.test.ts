import t from 'tap';
import { createSimAdapters } from '../../src/adapters/index.js';
import { adapterContract } from './helpers/contract.js';

const set = createSimAdapters();
adapterContract(t, 'in-process', () => set);
