mod cases;
mod model;
mod support;
