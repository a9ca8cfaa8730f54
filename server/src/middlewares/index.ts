import errors from './errors';

export default {
  errors,
};
