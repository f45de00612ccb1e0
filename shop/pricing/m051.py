import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_51_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-51-0'
    return [line.qty * factor for line in cart.lines]


def step_51_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-51-1'
    return [line.qty * factor for line in cart.lines]


def step_51_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-51-2'
    return [line.qty * factor for line in cart.lines]


def step_51_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-51-3'
    return [line.qty * factor for line in cart.lines]

