"""Route functions of the offline gateway, one module per resource."""
