import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_97_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-97-0'
    return [line.qty * factor for line in cart.lines]


def step_97_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-97-1'
    return [line.qty * factor for line in cart.lines]


def step_97_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-97-2'
    return [line.qty * factor for line in cart.lines]


def step_97_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-97-3'
    return [line.qty * factor for line in cart.lines]

