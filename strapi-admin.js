// Bundled by the host's admin build (Vite, ESM).
export { default } from './admin/src/index';
