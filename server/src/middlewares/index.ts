import accessLog from './access-log';
import errors from './errors';
import rateLimit from './rate-limit';

export default {
  errors,
  'rate-limit': rateLimit,
  'access-log': accessLog,
};
