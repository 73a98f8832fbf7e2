"""The cell-path profile's independent checks (`checks`); its certificate is the
start-list one (`racecert.certification.lattice.certificate`)."""
