mod cases;
mod support;
