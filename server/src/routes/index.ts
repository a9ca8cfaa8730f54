import admin from './admin';
import contentApi from './content-api';
import root from './root';

export default {
  admin,
  'content-api': contentApi,
  root,
};
