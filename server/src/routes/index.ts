import contentApi from './content-api';

export default {
  'content-api': contentApi,
};
