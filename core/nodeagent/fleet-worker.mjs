// Piscina loads this JavaScript entry in each worker thread: it registers tsx's loader (worker
// threads do not inherit the parent's `--import tsx` hooks reliably) and re-exports the
// TypeScript task function of fleet-worker.ts.
import { register } from 'tsx/esm/api';

register();
const mod = await import('./fleet-worker.ts');
export default mod.default;
