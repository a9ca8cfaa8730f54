'use strict';

// Plain-JS playground: do not write generated types into playground/types/.
module.exports = {
  autogenerate: false,
};
