import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_66_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-66-0'
    return [line.qty * factor for line in cart.lines]


def step_66_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-66-1'
    return [line.qty * factor for line in cart.lines]


def step_66_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-66-2'
    return [line.qty * factor for line in cart.lines]


def step_66_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-66-3'
    return [line.qty * factor for line in cart.lines]

