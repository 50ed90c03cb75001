// laddu/laddu.hpp: every stage's umbrella header, for users. laddu itself includes the precise
// headers it needs and never this one.
#pragma once

#include <laddu/base.hpp>
