import { createAdminController } from './admin';
import { createManifestController } from './manifest';

export default {
  manifest: createManifestController,
  admin: createAdminController,
};
