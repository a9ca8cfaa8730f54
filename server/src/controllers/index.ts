import { createManifestController } from './manifest';

export default {
  manifest: createManifestController,
};
